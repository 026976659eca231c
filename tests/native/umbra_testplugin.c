/* A library that NativeMix's `dlopen` workload loads and unloads in a loop: nothing else loads it, so each dlclose
   unmaps it. Its constructor and data make each load do a loader's usual work (relocations, initializers). */
#define EXPORT __attribute__((visibility("default"))) __attribute__((noinline))

static int initialized;
static const char* const names[] = {"one", "two", "three", "four"};

__attribute__((constructor)) static void on_load(void) { initialized = 1; }

EXPORT int umbra_plugin_value(void) { return initialized ? 40 + (int)(sizeof names / sizeof names[0]) / 2 : -1; }
