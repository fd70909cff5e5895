# NEARDUP_SANITIZE=ON builds everything with ASan + UBSan (CI runs the suite
# this way as well as in Release).
if(NEARDUP_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
