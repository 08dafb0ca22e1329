// The templates `ringside compare --new` writes a user's contestant from: the files of
// templates/contestant/<kind>/, embedded when the binary is built (cmake/embed_text_files.cmake
// writes these functions' definitions) so that an installed binary carries them. Edit them there.
// In them, @NAME@ stands for the contestant's name and @CONTESTANTS@ for the `--contestants DIR`
// its commands need (empty for ./contestants).
#pragma once

#include <string_view>

namespace ringside::harness {

std::string_view scaffold_python_manifest();  // templates/contestant/python/contestant.toml
std::string_view scaffold_python_server();    // templates/contestant/python/server.py
std::string_view scaffold_node_manifest();    // templates/contestant/node-http/contestant.toml
std::string_view scaffold_node_server();      // templates/contestant/node-http/server.js

}  // namespace ringside::harness
