# Common warning flags for every neardup target.
add_library(neardup_warnings INTERFACE)
target_compile_options(neardup_warnings INTERFACE -Wall -Wextra -Wno-unused-parameter)
