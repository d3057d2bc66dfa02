# write_if_changed(FILE CONTENT): writes CONTENT to FILE unless it already holds exactly
# that, so generated sources keep their timestamps and nothing rebuilds needlessly.
function(write_if_changed file content)
  if(EXISTS "${file}")
    file(READ "${file}" old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE "${file}" "${content}")
endfunction()
