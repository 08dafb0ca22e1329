#include "harness/measure/machine_facts.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "harness/measure/kernel_counters.hpp"
#include "harness/process/proc_text.hpp"
#include "harness/measure/sampler.hpp"
#include "harness/config/scenario.hpp"

namespace ringside::harness {
namespace {

std::string trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\n");
  if (first == std::string_view::npos) return {};
  const std::size_t last = text.find_last_not_of(" \t\n");
  return std::string(text.substr(first, last - first + 1));
}

std::string list_text(const std::vector<int>& cpus) {
  std::string text;
  for (int cpu : cpus) text += (text.empty() ? "" : ", ") + std::to_string(cpu);
  return text;
}

}  // namespace

std::string parse_cpu_model(std::string_view cpuinfo) {
  for (std::string_view key : {"model name", "Hardware", "cpu model", "Model"}) {
    std::size_t at = 0;
    while (at < cpuinfo.size()) {
      const std::size_t newline = cpuinfo.find('\n', at);
      const std::string_view line = cpuinfo.substr(at, newline == std::string_view::npos ? std::string_view::npos : newline - at);
      at = newline == std::string_view::npos ? cpuinfo.size() : newline + 1;
      const std::size_t colon = line.find(':');
      if (colon != std::string_view::npos && trim(line.substr(0, colon)) == key) {
        return trim(line.substr(colon + 1));
      }
    }
  }
  return {};
}

std::uint64_t parse_mem_total_kib(std::string_view meminfo) {
  return parse_status_kib(meminfo, "MemTotal");
}

std::vector<std::string> cpu_set_warnings(const std::vector<int>& server, const std::vector<int>& load,
                                          unsigned cores) {
  std::vector<std::string> warnings;
  std::vector<int> shared;
  std::set_intersection(server.begin(), server.end(), load.begin(), load.end(),
                        std::back_inserter(shared));
  if (!shared.empty()) {
    warnings.push_back("server and loader share core" + std::string(shared.size() > 1 ? "s " : " ") +
                       list_text(shared) +
                       ": the loader takes CPU from the servers, and the numbers are lower than "
                       "either could do alone");
  }
  for (const auto* set : {&server, &load}) {
    for (int cpu : *set) {
      if (cores > 0 && cpu >= static_cast<int>(cores)) {
        warnings.push_back("CPU " + std::to_string(cpu) + " is not online here (" +
                           std::to_string(cores) + " cores): it is not used");
      }
    }
  }
  return warnings;
}

MachineFacts gather_machine_facts(const std::string& server_cpus, const std::string& load_cpus) {
  MachineFacts facts;
  facts.cpu_model = parse_cpu_model(read_text("/proc/cpuinfo"));
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  facts.cores = online > 0 ? static_cast<unsigned>(online) : 0;
  utsname names{};
  if (uname(&names) == 0) facts.kernel = std::string(names.sysname) + " " + names.release;
  facts.memory_kib = parse_mem_total_kib(read_text("/proc/meminfo"));
  facts.governor = trim(read_text("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"));
  facts.server_cpus = server_cpus;
  facts.load_cpus = load_cpus;
  facts.warnings = cpu_set_warnings(parse_cpu_list(server_cpus).value_or(std::vector<int>{}),
                                    parse_cpu_list(load_cpus).value_or(std::vector<int>{}),
                                    facts.cores);
  if (!read_kernel_counters().readable) {
    facts.warnings.push_back("/proc/net/netstat or /proc/net/snmp is not readable: the kernel's "
                             "TCP counters are not measured");
  }
  return facts;
}

}  // namespace ringside::harness
