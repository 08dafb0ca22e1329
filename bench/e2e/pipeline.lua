-- wrk script: HTTP/1.1 pipelining. Each write carries DEPTH requests back to back, so the server
-- sees batches and the run measures its per-request cost rather than its per-syscall cost.
--
--   wrk -s pipeline.lua URL -- [PATH [DEPTH]]     defaults: /plaintext, 16

local batch

function init(args)
  local path = args[1] or "/plaintext"
  local depth = tonumber(args[2]) or 16
  local requests = {}
  for i = 1, depth do
    requests[i] = wrk.format(nil, path)
  end
  batch = table.concat(requests)
end

function request()
  return batch
end
