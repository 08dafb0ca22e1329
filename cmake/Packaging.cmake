# The Debian package (scripts/package → build/release/ringside_<version>_amd64.deb), built by
# CPack's DEB generator from the install rules: /usr/bin/ringside, /usr/share/ringside, the man
# pages and completions, and the docs with the copyright file and changelog.gz that Debian
# requires (changelog.gz, not changelog.Debian.gz: a native package, its version has no Debian
# revision). The binary is static (apps/CMakeLists.txt), so the package depends on nothing; what
# the contestants and the external loaders need is recommended or suggested.
# tests/integration/test_package.py installs it into a tree of its own and runs lintian over it.
set(RINGSIDE_PACKAGE_FILES ${PROJECT_BINARY_DIR}/packaging)
file(MAKE_DIRECTORY ${RINGSIDE_PACKAGE_FILES})
add_custom_command(OUTPUT ${RINGSIDE_PACKAGE_FILES}/changelog.gz
  COMMAND gzip -9 -n -c ${PROJECT_SOURCE_DIR}/packaging/changelog > ${RINGSIDE_PACKAGE_FILES}/changelog.gz
  DEPENDS ${PROJECT_SOURCE_DIR}/packaging/changelog
  COMMENT "changelog.gz"
  VERBATIM)
add_custom_target(ringside_package_files ALL DEPENDS ${RINGSIDE_PACKAGE_FILES}/changelog.gz)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright ${RINGSIDE_PACKAGE_FILES}/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ringside)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the ringside developers")
set(CPACK_PACKAGE_CONTACT "ringside developers <ringside@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "HTTP server benchmarking: a server, a load generator, a harness")
set(CPACK_PACKAGE_DESCRIPTION
    "ringside measures how fast an HTTP server is and how it compares.\n\
ringside serve is an HTTP/1.1 and HTTPS server: hello, JSON, /users/:id\n\
on SQLite or PostgreSQL, and the TechEmpower types. ringside load is a\n\
load generator with count, duration and constant-rate modes, and latency\n\
percentiles corrected for coordinated omission. ringside compare starts\n\
each contestant and a throwaway PostgreSQL, runs a scenario over rounds,\n\
and writes a verdict with JSON, Markdown and HTML reports.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://ringside.example.org/")
set(CPACK_DEBIAN_PACKAGE_DEPENDS "")
# The contestants' runtimes (nodejs and npm for the Node ones, deno and bun; gcc for floor), the
# throwaway PostgreSQL, and the external loaders (docs/loaders.md).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
    "nodejs, npm, gcc, nginx-light | nginx, h2o, postgresql, wrk, apache2-utils, nghttp2-client, hey")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cargo, rustc, python3, chromium")
include(CPack)
