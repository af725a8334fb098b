# Run at build time (cmake -P): the man pages and shell completions, written by the muster binary from its own
# command table, so what is installed always matches the binary. Man pages are gzipped (-n: no name or time
# stamp, so the output depends only on the binary) as Debian installs them.
#   -DMUSTER=<binary> -DOUT=<directory>
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT}/man1 ${OUT}/completions)
execute_process(COMMAND ${MUSTER} __generate man ${OUT}/man1 COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${MUSTER} __generate bash OUTPUT_FILE ${OUT}/completions/muster COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${MUSTER} __generate zsh OUTPUT_FILE ${OUT}/completions/_muster COMMAND_ERROR_IS_FATAL ANY)
file(GLOB pages ${OUT}/man1/*.1)
if(NOT pages)
  message(FATAL_ERROR "muster __generate man wrote no pages")
endif()
execute_process(COMMAND gzip -9nf ${pages} COMMAND_ERROR_IS_FATAL ANY)
file(TOUCH ${OUT}/stamp)
