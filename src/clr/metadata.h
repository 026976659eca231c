// IMetaDataImport, the slots umbra calls to turn a method token into "Namespace.Type+Nested.Method".
#pragma once

#include "clr/corprof.h"

namespace umbra::clr {

using HCORENUM = void*;
using PCCOR_SIGNATURE = const uint8_t*;

inline constexpr mdToken kTokenTypeMask = 0xFF000000u;
inline constexpr mdToken mdtTypeDef = 0x02000000u;
inline constexpr mdToken mdtMethodDef = 0x06000000u;
inline constexpr mdToken mdTokenNil = 0;
inline constexpr DWORD tdVisibilityMask = 0x7;
inline constexpr DWORD tdNestedPublic = 0x2;  // nested visibilities are 2..7

#define UMBRA_UNUSED_SLOT(name) virtual HRESULT name(...) = 0

// clang-format off
struct IMetaDataImport : IUnknown {
  UMBRA_UNUSED_SLOT(CloseEnum);                    // 3 (returns void; never called)
  UMBRA_UNUSED_SLOT(CountEnum);
  UMBRA_UNUSED_SLOT(ResetEnum);
  UMBRA_UNUSED_SLOT(EnumTypeDefs);
  UMBRA_UNUSED_SLOT(EnumInterfaceImpls);
  UMBRA_UNUSED_SLOT(EnumTypeRefs);
  UMBRA_UNUSED_SLOT(FindTypeDefByName);
  UMBRA_UNUSED_SLOT(GetScopeProps);
  UMBRA_UNUSED_SLOT(GetModuleFromScope);
  virtual HRESULT GetTypeDefProps(mdTypeDef type, WCHAR name[], ULONG cch_name, ULONG* pcch_name, DWORD* flags,
                                  mdToken* extends) = 0;                                    // 12
  UMBRA_UNUSED_SLOT(GetInterfaceImplProps);
  UMBRA_UNUSED_SLOT(GetTypeRefProps);
  UMBRA_UNUSED_SLOT(ResolveTypeRef);
  UMBRA_UNUSED_SLOT(EnumMembers);
  UMBRA_UNUSED_SLOT(EnumMembersWithName);
  UMBRA_UNUSED_SLOT(EnumMethods);
  UMBRA_UNUSED_SLOT(EnumMethodsWithName);
  UMBRA_UNUSED_SLOT(EnumFields);
  UMBRA_UNUSED_SLOT(EnumFieldsWithName);
  UMBRA_UNUSED_SLOT(EnumParams);
  UMBRA_UNUSED_SLOT(EnumMemberRefs);
  UMBRA_UNUSED_SLOT(EnumMethodImpls);
  UMBRA_UNUSED_SLOT(EnumPermissionSets);
  UMBRA_UNUSED_SLOT(FindMember);
  UMBRA_UNUSED_SLOT(FindMethod);
  UMBRA_UNUSED_SLOT(FindField);
  UMBRA_UNUSED_SLOT(FindMemberRef);
  virtual HRESULT GetMethodProps(mdMethodDef method, mdTypeDef* owner, WCHAR name[], ULONG cch_name,
                                 ULONG* pcch_name, DWORD* attributes, PCCOR_SIGNATURE* signature,
                                 ULONG* signature_size, ULONG* code_rva, DWORD* impl_flags) = 0;  // 30
  UMBRA_UNUSED_SLOT(GetMemberRefProps);
  UMBRA_UNUSED_SLOT(EnumProperties);
  UMBRA_UNUSED_SLOT(EnumEvents);
  UMBRA_UNUSED_SLOT(GetEventProps);
  UMBRA_UNUSED_SLOT(EnumMethodSemantics);
  UMBRA_UNUSED_SLOT(GetMethodSemantics);
  UMBRA_UNUSED_SLOT(GetClassLayout);
  UMBRA_UNUSED_SLOT(GetFieldMarshal);
  UMBRA_UNUSED_SLOT(GetRVA);
  UMBRA_UNUSED_SLOT(GetPermissionSetProps);
  UMBRA_UNUSED_SLOT(GetSigFromToken);
  UMBRA_UNUSED_SLOT(GetModuleRefProps);
  UMBRA_UNUSED_SLOT(EnumModuleRefs);
  UMBRA_UNUSED_SLOT(GetTypeSpecFromToken);
  UMBRA_UNUSED_SLOT(GetNameFromToken);
  UMBRA_UNUSED_SLOT(EnumUnresolvedMethods);
  UMBRA_UNUSED_SLOT(GetUserString);
  UMBRA_UNUSED_SLOT(GetPinvokeMap);
  UMBRA_UNUSED_SLOT(EnumSignatures);
  UMBRA_UNUSED_SLOT(EnumTypeSpecs);
  UMBRA_UNUSED_SLOT(EnumUserStrings);
  UMBRA_UNUSED_SLOT(GetParamForMethodIndex);
  UMBRA_UNUSED_SLOT(EnumCustomAttributes);
  UMBRA_UNUSED_SLOT(GetCustomAttributeProps);
  UMBRA_UNUSED_SLOT(FindTypeRef);
  UMBRA_UNUSED_SLOT(GetMemberProps);
  UMBRA_UNUSED_SLOT(GetFieldProps);
  UMBRA_UNUSED_SLOT(GetPropertyProps);
  UMBRA_UNUSED_SLOT(GetParamProps);
  UMBRA_UNUSED_SLOT(GetCustomAttributeByName);
  UMBRA_UNUSED_SLOT(IsValidToken);                 // 61 (returns BOOL; never called)
  virtual HRESULT GetNestedClassProps(mdTypeDef nested, mdTypeDef* enclosing) = 0;         // 62
  UMBRA_UNUSED_SLOT(GetNativeCallConvFromSig);
  UMBRA_UNUSED_SLOT(IsGlobal);                                                              // 64
};
// clang-format on

#undef UMBRA_UNUSED_SLOT

}  // namespace umbra::clr
