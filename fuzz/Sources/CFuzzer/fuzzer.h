// libFuzzer's driver (compiler-rt's FuzzerInterface.h): the fuzz targets' main calls it with their
// callback, since SwiftPM gives every executable a main of its own.
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
