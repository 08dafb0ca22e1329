#include "harness/report/report_files.hpp"

#include <fstream>
#include <sstream>

#include "harness/config/contestant.hpp"
#include "harness/config/data_folder.hpp"
#include "harness/report/report_html.hpp"
#include "harness/report/report_markdown.hpp"

namespace ringside::harness {
namespace fs = std::filesystem;
namespace {

constexpr const char* kUplotDist = "node_modules/uplot/dist";

bool read_whole(const fs::path& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream content;
  content << in.rdbuf();
  text = content.str();
  return static_cast<bool>(in) || in.eof();
}

// Written beside and renamed over, so a reader never sees half a report.
void write_whole(const fs::path& path, const std::string& text) {
  const fs::path temporary = path.string() + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw ReportError(temporary.string() + ": cannot write it (is the folder writable?)");
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) throw ReportError(path.string() + ": cannot write it: " + error.message());
}

}  // namespace

fs::path default_web_dir() {
  const DataFolder& data = data_folder();
  std::error_code error;
  return !data.root.empty() && fs::is_directory(data.root / "web", error) ? data.root / "web"
                                                                          : fs::path();
}

WebAssets load_web_assets(const fs::path& web_dir) {
  WebAssets web;
  if (web_dir.empty()) {
    web.missing = "no web/ folder in ringside's data folder, " +
                  describe(data_folder(), self_executable()) +
                  ": pass --web DIR (a folder where `npm ci` installed uplot)";
    return web;
  }
  const fs::path dist = web_dir / kUplotDist;
  if (!read_whole(dist / "uPlot.iife.min.js", web.uplot_js) ||
      !read_whole(dist / "uPlot.min.css", web.uplot_css) || web.uplot_js.empty()) {
    web = {};
    web.missing = "uPlot is not installed in " + dist.string() +
                  ": run scripts/setup (it runs npm ci --prefix web)";
  }
  return web;
}

fs::path results_file_in(const fs::path& file_or_folder) {
  std::error_code error;
  if (fs::is_directory(file_or_folder, error)) {
    const fs::path file = file_or_folder / "results.json";
    if (!fs::is_regular_file(file, error)) {
      throw ReportError(file_or_folder.string() +
                        ": no results.json in this folder; pass a results folder of ringside "
                        "compare or its results.json");
    }
    return file;
  }
  if (!fs::exists(file_or_folder, error)) {
    throw ReportError(file_or_folder.string() + ": no such file or folder");
  }
  return file_or_folder;
}

WrittenReports write_reports(const RunResults& results, const fs::path& dir) {
  return write_reports(results, dir, load_web_assets(default_web_dir()));
}

WrittenReports write_reports(const RunResults& results, const fs::path& dir, const WebAssets& web) {
  WrittenReports written{dir / "report.md", dir / "report.html", web.missing};
  write_whole(written.markdown, render_markdown(results));
  write_whole(written.html, render_html(results, web.uplot_js, web.uplot_css));
  return written;
}

}  // namespace ringside::harness
