# `cmake --install`: the binary, its man pages (muster(1), muster-<command>(1)) and bash/zsh completions, all
# generated at build time by the binary (generate_docs.cmake); `cpack -G DEB` packs the same into a .deb for
# Debian 12 / Ubuntu 22.04 and later (README.md, "Install"; packaging/README.md for lintian).
include(GNUInstallDirs)

set(MUSTER_DOCS_DIR ${PROJECT_BINARY_DIR}/generated-docs)
add_custom_command(
  OUTPUT ${MUSTER_DOCS_DIR}/stamp
  COMMAND ${CMAKE_COMMAND} -DMUSTER=$<TARGET_FILE:muster> -DOUT=${MUSTER_DOCS_DIR}
          -P ${CMAKE_CURRENT_LIST_DIR}/generate_docs.cmake
  DEPENDS muster ${CMAKE_CURRENT_LIST_DIR}/generate_docs.cmake
  COMMENT "Generating man pages and shell completions from muster's command table")
add_custom_target(muster_docs ALL DEPENDS ${MUSTER_DOCS_DIR}/stamp)

install(TARGETS muster RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${MUSTER_DOCS_DIR}/man1/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 FILES_MATCHING PATTERN "*.1.gz")
install(FILES ${MUSTER_DOCS_DIR}/completions/muster DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
# zsh: Debian's zsh reads packages' completions from /usr/share/zsh/vendor-completions and local ones from
# /usr/local/share/zsh/site-functions; the prefix is known only when installing (cpack installs to /usr).
install(CODE "set(muster_zsh_file \"${MUSTER_DOCS_DIR}/completions/_muster\")")
install(CODE [[
  if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
    set(muster_zsh_dir share/zsh/vendor-completions)
  else()
    set(muster_zsh_dir share/zsh/site-functions)
  endif()
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/${muster_zsh_dir}" TYPE FILE FILES "${muster_zsh_file}")
]])

# /usr/share/doc/muster: copyright and changelog, as every Debian package has them.
string(TIMESTAMP muster_changelog_date "%a, %d %b %Y %H:%M:%S +0000" UTC)  # honours SOURCE_DATE_EPOCH
set(MUSTER_PACKAGE_MAINTAINER "muster maintainers <muster@users.noreply.github.com>"
    CACHE STRING "Maintainer field of the .deb and its changelog")
file(WRITE ${PROJECT_BINARY_DIR}/packaging/changelog
     "muster (${PROJECT_VERSION}) unstable; urgency=medium\n\n  * muster ${PROJECT_VERSION}.\n\n"
     " -- ${MUSTER_PACKAGE_MAINTAINER}  ${muster_changelog_date}\n")
add_custom_command(
  OUTPUT ${PROJECT_BINARY_DIR}/packaging/changelog.gz
  COMMAND gzip -9nkf ${PROJECT_BINARY_DIR}/packaging/changelog
  DEPENDS ${PROJECT_BINARY_DIR}/packaging/changelog)
add_custom_target(muster_changelog ALL DEPENDS ${PROJECT_BINARY_DIR}/packaging/changelog.gz)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/copyright ${PROJECT_BINARY_DIR}/packaging/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME muster)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_CONTACT ${MUSTER_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${MUSTER_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # libc6 (>= the newest glibc symbol the binary uses)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "openssh-client")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion, slurm-client")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# lintian's remaining notes, and why they stay: packaging/README.md
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "multi-node PyTorch training launched from one machine")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION  # the extended description; CPack puts the summary above it
    "muster starts a training job on every node over ssh, inside a Slurm\n"
    "allocation or locally, with the environment torchrun, DeepSpeed and\n"
    "accelerate expect, streams clean per-rank logs, stops every rank when one\n"
    "fails and leaves no process behind. It also checks the cluster (doctor),\n"
    "copies code to every node (sync), sets up ssh and /etc/hosts (setup) and\n"
    "writes hostfiles, accelerate, DeepSpeed and Slurm files (gen). Nodes need\n"
    "nothing installed: muster copies itself to them.")
string(REPLACE ";" "" CPACK_DEBIAN_PACKAGE_DESCRIPTION "${CPACK_DEBIAN_PACKAGE_DESCRIPTION}")  # the lines
include(CPack)
