// The machine a run was measured on, for results.json: CPU model, cores, kernel, memory, the
// CPU frequency governor when visible, the CPU sets used, and warnings about the setup (server
// and loader sharing a core). Parsers are pure; gather_machine_facts reads /proc and /sys.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/results/results.hpp"

namespace ringside::harness {

// "model name" of /proc/cpuinfo (or "Hardware"/"cpu model" on other architectures); "" if none.
std::string parse_cpu_model(std::string_view cpuinfo);
// MemTotal of /proc/meminfo in KiB; 0 if absent.
std::uint64_t parse_mem_total_kib(std::string_view meminfo);
// Warnings for these CPU sets on a machine with `cores` online CPUs: a shared core, a CPU that
// does not exist.
std::vector<std::string> cpu_set_warnings(const std::vector<int>& server, const std::vector<int>& load,
                                          unsigned cores);

MachineFacts gather_machine_facts(const std::string& server_cpus, const std::string& load_cpus);

}  // namespace ringside::harness
