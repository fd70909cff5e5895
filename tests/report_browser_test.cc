// Copyright neardup authors. Licensed under Apache-2.0.
//
// report.html as a browser draws it: headless Chromium renders the report of
// a dedup run of the sample crawl. The dumped DOM must hold the inline SVG
// plots with their data points, and the screenshot must not be blank (the
// PNG is decoded here with zlib: IDAT inflated, scanlines unfiltered, and
// the pixels that differ from the page background counted). Skipped when
// Chromium is not installed (scripts/install-deps.sh --browser installs it).
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "test_util.h"

namespace neardup {
namespace {

namespace fs = std::filesystem;
using testing::CliPath;
using testing::MakeTempDir;
using testing::Q;
using testing::ReadFileOrEmpty;
using testing::RepoTestDataDir;
using testing::RunCommand;

std::string FindChromium() {
  for (const char* path : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (fs::exists(path)) return path;
  }
  return "";
}

// The browser, headless, with a private profile, under a time limit.
std::string Browser(const std::string& chromium, const std::string& profile) {
  return "timeout 120 " + Q(chromium) +
         " --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --disable-extensions "
         "--user-data-dir=" + Q(profile) + " ";
}

uint32_t BigEndian32(const std::string& s, size_t pos) {
  return (static_cast<uint32_t>(static_cast<unsigned char>(s[pos])) << 24) |
         (static_cast<uint32_t>(static_cast<unsigned char>(s[pos + 1])) << 16) |
         (static_cast<uint32_t>(static_cast<unsigned char>(s[pos + 2])) << 8) |
         static_cast<uint32_t>(static_cast<unsigned char>(s[pos + 3]));
}

struct Image {
  uint32_t width = 0, height = 0, channels = 0;
  std::vector<uint8_t> pixels;  // width * height * channels
};

// Decodes an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes).
// Returns false with *error set otherwise.
bool DecodePng(const std::string& png, Image* image, std::string* error) {
  if (png.size() < 8 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) {
    *error = "not a PNG";
    return false;
  }
  std::string idat;
  uint8_t bit_depth = 0, color_type = 0, interlace = 0;
  for (size_t pos = 8; pos + 12 <= png.size();) {
    const uint32_t length = BigEndian32(png, pos);
    if (pos + 12 + length > png.size()) break;
    const std::string type = png.substr(pos + 4, 4);
    const std::string data = png.substr(pos + 8, length);
    if (type == "IHDR" && length >= 13) {
      image->width = BigEndian32(data, 0);
      image->height = BigEndian32(data, 4);
      bit_depth = static_cast<uint8_t>(data[8]);
      color_type = static_cast<uint8_t>(data[9]);
      interlace = static_cast<uint8_t>(data[12]);
    } else if (type == "IDAT") {
      idat += data;
    } else if (type == "IEND") {
      break;
    }
    pos += 12 + length;
  }
  if (bit_depth != 8 || (color_type != 2 && color_type != 6) || interlace != 0 || image->width == 0 ||
      image->height == 0 || image->width > 20000 || image->height > 20000) {
    *error = "unsupported PNG layout";
    return false;
  }
  image->channels = color_type == 6 ? 4 : 3;
  const size_t stride = static_cast<size_t>(image->width) * image->channels;
  std::vector<uint8_t> raw((stride + 1) * image->height);
  z_stream z{};
  if (inflateInit(&z) != Z_OK) {
    *error = "inflateInit failed";
    return false;
  }
  z.next_in = reinterpret_cast<Bytef*>(idat.data());
  z.avail_in = static_cast<uInt>(idat.size());
  z.next_out = raw.data();
  z.avail_out = static_cast<uInt>(raw.size());
  const int rc = inflate(&z, Z_FINISH);
  inflateEnd(&z);
  if (rc != Z_STREAM_END || z.avail_out != 0) {
    *error = "IDAT does not inflate to the image size";
    return false;
  }
  // Unfilter (PNG spec §9): each scanline starts with its filter type.
  image->pixels.assign(stride * image->height, 0);
  const size_t bpp = image->channels;
  for (size_t y = 0; y < image->height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    uint8_t* out = &image->pixels[y * stride];
    const uint8_t* up = y > 0 ? &image->pixels[(y - 1) * stride] : nullptr;
    for (size_t x = 0; x < stride; ++x) {
      const int a = x >= bpp ? out[x - bpp] : 0;
      const int b = up ? up[x] : 0;
      const int c = (up && x >= bpp) ? up[x - bpp] : 0;
      int predictor = 0;
      switch (filter) {
        case 0: predictor = 0; break;
        case 1: predictor = a; break;
        case 2: predictor = b; break;
        case 3: predictor = (a + b) / 2; break;
        case 4: {
          const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          predictor = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
          break;
        }
        default: *error = "bad filter type"; return false;
      }
      out[x] = static_cast<uint8_t>(in[x] + predictor);
    }
  }
  return true;
}

TEST(PngDecoderTest, DecodesAHandMadeImage) {
  // A 2x2 RGB image, rows filtered with Sub (1) and Up (2):
  // row 0 raw (10,20,30)(15,25,35) -> Sub bytes 10,20,30,5,5,5;
  // row 1 raw (11,22,33)(15,25,35) -> Up bytes 1,2,3,0,0,0.
  const unsigned char scanlines[] = {1, 10, 20, 30, 5, 5, 5, 2, 1, 2, 3, 0, 0, 0};
  uLongf size = compressBound(sizeof scanlines);
  std::string deflated(size, '\0');
  ASSERT_EQ(compress(reinterpret_cast<Bytef*>(deflated.data()), &size, scanlines, sizeof scanlines), Z_OK);
  deflated.resize(size);
  auto chunk = [](const std::string& type, const std::string& data) {
    std::string c;
    for (int shift : {24, 16, 8, 0}) c.push_back(static_cast<char>((data.size() >> shift) & 0xff));
    return c + type + data + "CRC!";  // the decoder does not check CRCs
  };
  const std::string ihdr("\0\0\0\2\0\0\0\2\x08\x02\0\0\0", 13);
  const std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + chunk("IHDR", ihdr) + chunk("IDAT", deflated) +
                          chunk("IEND", "");
  Image image;
  std::string error;
  ASSERT_TRUE(DecodePng(png, &image, &error)) << error;
  EXPECT_EQ(image.pixels, (std::vector<uint8_t>{10, 20, 30, 15, 25, 35, 11, 22, 33, 15, 25, 35}));
  EXPECT_FALSE(DecodePng("not a png", &image, &error));
}

TEST(ReportBrowserTest, ChromiumDrawsThePlots) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium is not installed (run: bash scripts/install-deps.sh --browser)";
  }
  const std::string dir = MakeTempDir("report-browser");
  const std::string run = dir + "/run";
  std::string out;
  ASSERT_EQ(RunCommand(Q(CliPath()) + " dedup " + Q(RepoTestDataDir() + "/sample/sample-crawl.warc.gz") + " --out " +
                           Q(run) + " --pairs --threads 1 --quiet",
                       &out),
            0)
      << out;
  ASSERT_EQ(RunCommand(Q(CliPath()) + " report -q " + Q(run), &out), 0) << out;
  const std::string url = "file://" + fs::absolute(run + "/report.html").string();

  // The DOM as the browser parsed it.
  const std::string dom_path = dir + "/dom.html";
  ASSERT_EQ(RunCommand(Browser(chromium, dir + "/profile-dom") + "--dump-dom " + Q(url) + " > " + Q(dom_path), &out),
            0)
      << out;
  const std::string dom = ReadFileOrEmpty(dom_path);
  size_t svgs = 0, points = 0;
  for (size_t pos = dom.find("<svg"); pos != std::string::npos; pos = dom.find("<svg", pos + 1)) ++svgs;
  for (size_t pos = dom.find("class=\"point\""); pos != std::string::npos; pos = dom.find("class=\"point\"", pos + 1)) {
    ++points;
    const size_t end = dom.find('>', pos);
    const std::string tag = dom.substr(pos, end - pos);
    EXPECT_NE(tag.find("data-x=\""), std::string::npos) << tag;
    EXPECT_NE(tag.find("data-y=\""), std::string::npos) << tag;
  }
  EXPECT_GE(svgs, 2u) << dom.substr(0, 500);  // cluster sizes, duplicates per host (+ degrees)
  EXPECT_GE(points, 3u);
  EXPECT_NE(dom.find("Cluster size distribution"), std::string::npos);

  // The screenshot.
  const std::string png_path = dir + "/shot.png";
  ASSERT_EQ(RunCommand(Browser(chromium, dir + "/profile-shot") + "--window-size=1000,1400 --screenshot=" +
                           Q(png_path) + " " + Q(url),
                       &out),
            0)
      << out;
  Image image;
  std::string error;
  ASSERT_TRUE(DecodePng(ReadFileOrEmpty(png_path), &image, &error)) << error;
  EXPECT_EQ(image.width, 1000u);
  EXPECT_EQ(image.height, 1400u);
  // Background = the most frequent colour; a drawn page (text, tables, plot
  // frames, points, bars) differs from it in well over 3% of the pixels and
  // uses many colours.
  std::map<uint32_t, uint64_t> colours;
  const size_t n = static_cast<size_t>(image.width) * image.height;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* p = &image.pixels[i * image.channels];
    ++colours[(static_cast<uint32_t>(p[0]) << 16) | (static_cast<uint32_t>(p[1]) << 8) | p[2]];
  }
  uint64_t background = 0;
  for (const auto& [rgb, count] : colours) background = std::max(background, count);
  const double differing = static_cast<double>(n - background) / static_cast<double>(n);
  EXPECT_GT(differing, 0.03) << "the screenshot looks blank";
  EXPECT_GT(colours.size(), 50u);
  // The plots' blue (#2b6cb0) or something close to it appears: data drawn.
  uint64_t bluish = 0;
  for (const auto& [rgb, count] : colours) {
    const int r = static_cast<int>(rgb >> 16), g = static_cast<int>((rgb >> 8) & 0xff), b = static_cast<int>(rgb & 0xff);
    if (std::abs(r - 0x2b) < 24 && std::abs(g - 0x6c) < 24 && std::abs(b - 0xb0) < 24) bluish += count;
  }
  EXPECT_GT(bluish, 200u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace neardup
