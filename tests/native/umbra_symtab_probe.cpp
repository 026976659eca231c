// A library whose one interesting function is in no dynamic symbol table: static, so only the library's .symtab
// (or its separate debug file) names it. tests/unit/native_symbols_test.cpp asks umbra to name an address in it.
namespace umbra_probe {

__attribute__((noinline)) static int symtab_only(int x) {
  int sum = 0;
  for (int i = 0; i < x; ++i) sum += i * x;
  return sum;
}

}  // namespace umbra_probe

extern "C" __attribute__((visibility("default"))) void* umbra_probe_symtab_only_address() {
  return reinterpret_cast<void*>(&umbra_probe::symtab_only);
}
