// A minimal PNG writer for plots (8-bit RGB, no compression: stored deflate blocks), so that
// tools can draw a chart without an image library.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace atc {

struct RgbImage {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // width * height * 3, row-major from the top
  RgbImage(int w, int h, uint8_t r = 255, uint8_t g = 255, uint8_t b = 255);
  void set(int x, int y, uint8_t r, uint8_t g, uint8_t b);  // ignores points outside
  void line(int x0, int y0, int x1, int y1, uint8_t r, uint8_t g, uint8_t b);
};

// The PNG file's bytes.
std::vector<uint8_t> encodePng(const RgbImage& img);

}  // namespace atc
