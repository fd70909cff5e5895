// tokenizer_digest: one XXH3 digest of everything the tokenizer yields for
// every file under the folders given, the check that a change to the
// tokenizer meant to be faster leaves its output bit-identical.
//
//   tokenizer_digest [--per-file] [--max-file-bytes N] DIR_OR_FILE...
//
// Every regular file of at most N bytes (default 8 MiB) is read, in the
// byte order of its path, and tokenized twice: as HTML and as text, with
// the page URL http://www.example.com/a/b.html and no declared charset
// (so the charset detection runs too). Every field of each
// TokenizedDocument (terms, offsets, hashes, sentences, lines, link terms,
// cells, URL spans, links, canonical URL, title range, visible characters,
// charset and its flags) goes into one running XXH3-64 digest, which is printed with
// the counts of files and terms. Build the program at two commits and run
// both on the same folders: equal digests, the same output. --per-file
// prints each file's own digest too, to find the first file that differs.
// A folder that cannot be listed, or a file that cannot be read, is named
// on stderr and the exit status is 1 (the digest is then not comparable).
#include <xxhash.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "neardup/document.h"
#include "neardup/env.h"
#include "text/tokenizer.h"

namespace {

constexpr std::string_view kPageUrl = "http://www.example.com/a/b.html";

template <typename T>
void AddVector(XXH3_state_t* state, const std::vector<T>& v) {
  const uint64_t n = v.size();
  XXH3_64bits_update(state, &n, sizeof n);
  if (!v.empty()) XXH3_64bits_update(state, v.data(), v.size() * sizeof(T));
}

void AddString(XXH3_state_t* state, std::string_view s) {
  const uint64_t n = s.size();
  XXH3_64bits_update(state, &n, sizeof n);
  XXH3_64bits_update(state, s.data(), s.size());
}

void AddDocument(XXH3_state_t* state, const neardup::TokenizedDocument& d) {
  AddString(state, d.term_bytes);
  AddVector(state, d.term_offsets);
  AddVector(state, d.term_hashes);
  AddVector(state, d.sentence_ends);
  AddVector(state, d.line_ends);
  AddVector(state, d.line_link_terms);
  AddVector(state, d.line_is_cell);
  AddVector(state, d.url_spans);
  const uint64_t links = d.links.size();
  XXH3_64bits_update(state, &links, sizeof links);
  for (const std::string& link : d.links) AddString(state, link);
  AddString(state, d.canonical_url);
  const uint32_t title[2] = {d.title_begin, d.title_end};
  XXH3_64bits_update(state, title, sizeof title);
  XXH3_64bits_update(state, &d.text_chars, sizeof d.text_chars);
  AddString(state, d.charset);
  const uint8_t flags[3] = {d.charset_fallback, d.had_invalid_bytes, d.html};
  XXH3_64bits_update(state, flags, sizeof flags);
}

void Usage() {
  std::fprintf(stderr, "usage: tokenizer_digest [--per-file] [--max-file-bytes N] DIR_OR_FILE...\n");
}

}  // namespace

int main(int argc, char** argv) {
  bool per_file = false;
  uintmax_t max_file_bytes = uintmax_t{8} << 20;
  std::vector<std::filesystem::path> roots;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--per-file") {
      per_file = true;
    } else if (arg == "--max-file-bytes" && i + 1 < argc) {
      char* rest = nullptr;
      max_file_bytes = std::strtoumax(argv[++i], &rest, 10);
      if (rest == argv[i] || *rest != '\0') {
        std::fprintf(stderr, "tokenizer_digest: --max-file-bytes takes a number of bytes, not '%s'\n", argv[i]);
        return 2;
      }
    } else if (arg == "--help" || arg == "-h") {
      Usage();
      return 0;
    } else if (!arg.empty() && arg[0] == '-') {
      Usage();
      return 2;
    } else {
      roots.emplace_back(arg);
    }
  }
  if (roots.empty()) {
    Usage();
    return 2;
  }
  std::vector<std::string> files;
  for (const auto& root : roots) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(root, ec)) {
      files.push_back(root.string());
      continue;
    }
    // No folder is skipped: one that cannot be listed is an error below.
    auto it = std::filesystem::recursive_directory_iterator(root, ec);
    if (ec) {
      std::fprintf(stderr, "tokenizer_digest: cannot read %s: %s\n", root.c_str(), ec.message().c_str());
      return 1;
    }
    for (; it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) {
        // A digest over part of the folder would compare as another output.
        std::fprintf(stderr, "tokenizer_digest: cannot list %s: %s\n", root.c_str(), ec.message().c_str());
        return 1;
      }
      std::error_code type_ec;
      if (it->is_regular_file(type_ec) && !it->is_symlink(type_ec) && it->file_size(type_ec) <= max_file_bytes) {
        files.push_back(it->path().string());
      }
    }
  }
  std::sort(files.begin(), files.end());

  neardup::Tokenizer tokenizer;
  neardup::TokenizedDocument doc;
  XXH3_state_t* all = XXH3_createState();
  XXH3_state_t* one = XXH3_createState();
  XXH3_64bits_reset(all);
  uint64_t terms = 0, bytes = 0;
  size_t read = 0, unreadable = 0;
  for (const std::string& path : files) {
    neardup::Result<std::string> read_body = neardup::ReadFileToString(neardup::Env::Default(), path);
    if (!read_body.ok()) {
      std::fprintf(stderr, "tokenizer_digest: cannot read %s: %s\n", path.c_str(),
                   read_body.status().ToString().c_str());
      ++unreadable;
      continue;
    }
    const std::string& body = read_body.value();
    ++read;
    bytes += body.size();
    XXH3_64bits_reset(one);
    for (neardup::ContentKind kind : {neardup::ContentKind::kHtml, neardup::ContentKind::kText}) {
      tokenizer.Tokenize(body, kind, "", kPageUrl, &doc);
      AddDocument(all, doc);
      AddDocument(one, doc);
      terms += doc.num_terms();
    }
    if (per_file) std::printf("%016" PRIx64 "\t%s\n", XXH3_64bits_digest(one), path.c_str());
  }
  std::printf("digest %016" PRIx64 "  files %zu  bytes %" PRIu64 "  terms %" PRIu64 "\n", XXH3_64bits_digest(all),
              read, bytes, terms);
  XXH3_freeState(all);
  XXH3_freeState(one);
  // Files left out make the digest another folder's: say so in the status.
  return unreadable == 0 ? 0 : 1;
}
