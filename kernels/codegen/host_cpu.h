// The host CPU as LLVM sees it: what --soc_version=native resolves to.
#pragma once
#include <string>

#include "target/target_profile.h"

namespace atc {

HostCpu hostCpu();
// loadTargetProfile(socVersion, hostCpu()).
TargetProfile loadHostTargetProfile(const std::string& socVersion);

}  // namespace atc
