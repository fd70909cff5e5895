// neardup compare: one pair of pages through every method's eyes.
#include "neardup/compare.h"

#include <xxhash.h>

#include <algorithm>
#include <tuple>
#include <unordered_set>

#include "engine/method_options.h"
#include "neardup/source.h"
#include "report/site.h"
#include "report/token_diff.h"
#include "text/tokenizer.h"

namespace neardup {

namespace {

struct Loaded {
  Document doc;
  TokenizedDocument tokens;
};

Result<Loaded> Load(const std::string& input, Env* env) {
  SourceOptions so;
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> source,
                           OpenDocumentSource({input}, so, env, nullptr));
  Loaded l;
  if (!source->Next(&l.doc)) return Status::NotFound("no document could be read from " + input);
  TokenizeOptions to;
  to.collect_links = false;
  Tokenizer tokenizer(to);
  tokenizer.Tokenize(l.doc, &l.tokens);
  return l;
}

std::string RunText(const TokenizedDocument& t, uint32_t begin, uint32_t end) {
  std::string s;
  for (uint32_t i = begin; i < end && s.size() < 300; ++i) {
    if (!s.empty()) s.push_back(' ');
    s.append(t.term(i));
  }
  if (s.size() > 300) s.resize(300);
  return s;
}

}  // namespace

Result<Comparison> ComparePages(const std::string& input_a, const std::string& input_b,
                                const DedupOptions& options, Env* env) {
  NEARDUP_RETURN_IF_ERROR(options.Validate());
  NEARDUP_ASSIGN_OR_RETURN(Loaded a, Load(input_a, env));
  NEARDUP_ASSIGN_OR_RETURN(Loaded b, Load(input_b, env));
  Comparison c;
  for (auto [page, l, in] : {std::tuple{&c.a, &a, &input_a}, std::tuple{&c.b, &b, &input_b}}) {
    page->source = *in;
    page->url = l->doc.url;
    page->terms = l->tokens.num_terms();
    page->charset = l->tokens.charset;
  }
  c.exact_same_tokens = a.tokens.term_hashes == b.tokens.term_hashes;
  c.exact_same_bytes = a.doc.body == b.doc.body;
  c.same_site = SiteOfUrl(a.doc.url) == SiteOfUrl(b.doc.url);

  // Broder: supershingles and the shingle sets' resemblance.
  const BroderSketcher broder(ToSketchOptions(options.broder));
  c.num_supershingles = broder.options().num_supershingles();
  std::vector<uint64_t> sa(c.num_supershingles), sb(c.num_supershingles);
  SketchScratch scratch;
  const bool ha = broder.Sketch(a.tokens.term_hashes, &scratch, sa.data());
  const bool hb = broder.Sketch(b.tokens.term_hashes, &scratch, sb.data());
  if (ha && hb) c.b_similarity = BSimilarity(sa.data(), sb.data(), c.num_supershingles);
  c.b_similar = c.b_similarity >= 2;
  std::vector<uint64_t> shingles_a, shingles_b;
  broder.Shingles(a.tokens.term_hashes, &shingles_a);
  broder.Shingles(b.tokens.term_hashes, &shingles_b);
  const std::unordered_set<uint64_t> set_a(shingles_a.begin(), shingles_a.end());
  const std::unordered_set<uint64_t> set_b(shingles_b.begin(), shingles_b.end());
  size_t common = 0;
  for (uint64_t s : set_a) common += set_b.count(s);
  const size_t uni = set_a.size() + set_b.size() - common;
  c.jaccard = uni ? static_cast<double>(common) / uni : 1.0;

  // Simhash.
  const SimhashSketcher simhash(ToSimhashOptions(options.simhash));
  c.simhash_bits = simhash.options().bits;
  std::vector<uint64_t> ka(simhash.options().words()), kb(simhash.options().words());
  SimhashScratch sscratch;
  if (simhash.Sketch(a.tokens.term_hashes, &sscratch, ka.data()) &&
      simhash.Sketch(b.tokens.term_hashes, &sscratch, kb.data())) {
    c.c_similarity = CSimilarity(ka.data(), kb.data(), c.simhash_bits);
  }
  c.c_similar = c.c_similarity >= static_cast<int>(options.simhash.threshold);

  // Henzinger's term difference: a diff of the token sequences.
  const TokenDiff diff = DiffTerms(a.tokens.term_hashes, b.tokens.term_hashes);
  c.term_difference = diff.term_difference;
  for (const DiffRun& r : diff.runs) {
    CompareRun run;
    run.a_begin = r.a_begin;
    run.a_end = r.a_end;
    run.b_begin = r.b_begin;
    run.b_end = r.b_end;
    switch (r.kind) {
      case DiffRun::Kind::kEqual:
        run.kind = CompareRun::Kind::kEqual;
        run.text = RunText(a.tokens, r.a_begin, r.a_end);
        break;
      case DiffRun::Kind::kDelete:
        run.kind = CompareRun::Kind::kOnlyInA;
        run.text = RunText(a.tokens, r.a_begin, r.a_end);
        break;
      case DiffRun::Kind::kInsert:
        run.kind = CompareRun::Kind::kOnlyInB;
        run.text = RunText(b.tokens, r.b_begin, r.b_end);
        break;
    }
    c.runs.push_back(std::move(run));
  }
  return c;
}

}  // namespace neardup
