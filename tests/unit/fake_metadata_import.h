// IMetaDataImport naming the methods a test chooses: every slot FunctionNames does not call answers E_NOTIMPL.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "clr/metadata.h"

namespace umbra::testing {

struct FakeMetaDataImport : clr::IMetaDataImport {
  struct Method {
    clr::mdTypeDef owner;
    std::u16string name;
  };
  std::map<clr::mdMethodDef, Method> methods;
  std::map<clr::mdTypeDef, std::u16string> types;  // namespace-qualified, not nested

  // Names `method` "type_name.method_name", declared by the type definition `owner`.
  void name_method(clr::mdMethodDef method, clr::mdTypeDef owner, std::u16string type_name,
                   std::u16string method_name) {
    methods[method] = {owner, std::move(method_name)};
    types[owner] = std::move(type_name);
  }

  clr::HRESULT GetTypeDefProps(clr::mdTypeDef type, clr::WCHAR name[], clr::ULONG cch_name, clr::ULONG* pcch_name,
                               clr::DWORD* flags, clr::mdToken* extends) override {
    auto it = types.find(type);
    if (it == types.end()) return clr::E_FAIL;
    copy(it->second, name, cch_name, pcch_name);
    *flags = 1;  // tdPublic: not nested
    *extends = clr::mdTokenNil;
    return clr::S_OK;
  }
  clr::HRESULT GetMethodProps(clr::mdMethodDef method, clr::mdTypeDef* owner, clr::WCHAR name[], clr::ULONG cch_name,
                              clr::ULONG* pcch_name, clr::DWORD* attributes, clr::PCCOR_SIGNATURE* signature,
                              clr::ULONG* signature_size, clr::ULONG* code_rva, clr::DWORD* impl_flags) override {
    auto it = methods.find(method);
    if (it == methods.end()) return clr::E_FAIL;
    *owner = it->second.owner;
    copy(it->second.name, name, cch_name, pcch_name);
    *attributes = 0;
    *signature = nullptr;
    *signature_size = 0;
    *code_rva = 0;
    *impl_flags = 0;
    return clr::S_OK;
  }
  clr::HRESULT GetNestedClassProps(clr::mdTypeDef, clr::mdTypeDef*) override { return clr::E_FAIL; }

  clr::HRESULT QueryInterface(clr::REFIID, void**) override { return clr::E_NOINTERFACE; }
  // Owned by the test: the references FunctionNames takes and gives back are not counted.
  clr::ULONG AddRef() override { return 1; }
  clr::ULONG Release() override { return 1; }

  clr::HRESULT CloseEnum(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT CountEnum(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT ResetEnum(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumTypeDefs(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumInterfaceImpls(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumTypeRefs(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT FindTypeDefByName(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetScopeProps(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetModuleFromScope(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetInterfaceImplProps(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetTypeRefProps(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT ResolveTypeRef(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumMembers(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumMembersWithName(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumMethods(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumMethodsWithName(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumFields(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumFieldsWithName(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumParams(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumMemberRefs(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumMethodImpls(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumPermissionSets(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT FindMember(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT FindMethod(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT FindField(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT FindMemberRef(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetMemberRefProps(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumProperties(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumEvents(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetEventProps(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumMethodSemantics(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetMethodSemantics(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetClassLayout(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetFieldMarshal(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetRVA(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetPermissionSetProps(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetSigFromToken(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetModuleRefProps(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumModuleRefs(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetTypeSpecFromToken(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetNameFromToken(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumUnresolvedMethods(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetUserString(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetPinvokeMap(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumSignatures(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumTypeSpecs(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumUserStrings(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetParamForMethodIndex(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumCustomAttributes(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetCustomAttributeProps(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT FindTypeRef(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetMemberProps(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetFieldProps(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetPropertyProps(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetParamProps(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetCustomAttributeByName(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT IsValidToken(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetNativeCallConvFromSig(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT IsGlobal(...) override { return clr::E_NOTIMPL; }

 private:
  // As the runtime does: the length with its NUL, the text cut to the buffer.
  static void copy(const std::u16string& text, clr::WCHAR out[], clr::ULONG capacity, clr::ULONG* length) {
    *length = clr::ULONG(text.size() + 1);
    if (capacity == 0) return;
    size_t n = std::min<size_t>(text.size(), capacity - 1);
    std::copy_n(text.data(), n, out);
    out[n] = u'\0';
  }
};

}  // namespace umbra::testing
