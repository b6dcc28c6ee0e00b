# Concatenates the ptxas reports kept beside each kernel object (see keep-kernel-outputs.sh) into
# a C++ raw string that tool/model/kernel_resources.cpp parses. Objects with no report (host-only
# sources) contribute nothing.
# OBJECTS arrives joined with '|' so that one -D argument carries the whole list.
string(REPLACE "|" ";" objects "${OBJECTS}")
set(text "")
foreach(object IN LISTS objects)
  if(EXISTS "${object}.resources")
    file(READ "${object}.resources" report)
    string(APPEND text "${report}")
  endif()
endforeach()
file(WRITE "${OUTPUT}.tmp" "R\"ptxas(${text})ptxas\"\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
