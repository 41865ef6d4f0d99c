-- wrk script for bench/run. One script for every scenario, so the client does the same
-- work (a Lua request() and response() per request) whatever the route measured.
--
-- Environment:
--   BENCH_MODE       healthz | submit | submit_id | results
--                    submit: the body every release accepts (no response_id; the server
--                    draws the receipt), the same bytes for the binary before and after.
--                    submit_id: each body also carries a fresh random "response_id", as
--                    the form sends it since issue 16 (built per request, so the client
--                    does a little more Lua work than for the other modes).
--   BENCH_QUESTIONS  submit, submit_id: the demo's three question ids, comma-separated
--   BENCH_SLUG       the survey's slug (default: demo)
--   BENCH_TOKEN      results: the owner's bearer token (kept out of argv)
--   BENCH_LIMIT      optional: each thread stops after this many responses (used to fill)
--
-- done() prints one line for bench/run to parse:
--   RESULT requests=… duration_s=… rps=… p50_ms=… p90_ms=… p99_ms=… max_ms=…
--          unexpected=… last_unexpected=… socket_errors=…
-- where `unexpected` counts responses whose status is not the mode's expected one
-- (201 for submit and submit_id, 200 otherwise).

local mode = os.getenv("BENCH_MODE") or "healthz"
local slug = os.getenv("BENCH_SLUG") or "demo"

local threads = {}
local next_id = 0

function setup(thread)
   next_id = next_id + 1
   thread:set("thread_id", next_id)
   table.insert(threads, thread)
end

local requests = {}
local bodies = {}
local submit_path = "/api/surveys/" .. slug .. "/responses"
local json_headers = { ["Content-Type"] = "application/json" }
local expected = 200

-- 64 random lowercase hex digits (16 bits at a time: LuaJIT's %x is safe below 2^31).
local function random_response_id()
   local parts = {}
   for k = 1, 16 do
      parts[k] = string.format("%04x", math.random(0, 65535))
   end
   return table.concat(parts)
end

function init(args)
   limit = tonumber(os.getenv("BENCH_LIMIT") or "0") or 0
   seen = 0
   unexpected = 0
   last_unexpected = "-"
   math.randomseed(os.time() * 1000 + (thread_id or 0))

   if mode == "healthz" then
      requests[1] = wrk.format("GET", "/healthz", {})
   elseif mode == "results" then
      local token = os.getenv("BENCH_TOKEN")
      assert(token and token ~= "", "BENCH_TOKEN is required for mode=results")
      requests[1] = wrk.format("GET", "/api/surveys/" .. slug .. "/results?confidence=0.95",
         { ["Authorization"] = "Bearer " .. token })
   elseif mode == "submit" or mode == "submit_id" then
      expected = 201
      local ids = {}
      for id in string.gmatch(os.getenv("BENCH_QUESTIONS") or "", "[^,]+") do
         table.insert(ids, id)
      end
      assert(#ids == 3, "BENCH_QUESTIONS must hold three question ids")
      -- All eight combinations of three reports, pre-formatted; request() picks one at
      -- random, so the stored reports (and the tallies they update) vary.
      for combination = 0, 7 do
         local bits = {}
         for k = 1, 3 do
            bits[k] = math.floor(combination / 2 ^ (k - 1)) % 2
         end
         local answers = string.format('{"%s": %d, "%s": %d, "%s": %d}',
            ids[1], bits[1], ids[2], bits[2], ids[3], bits[3])
         bodies[combination + 1] = answers
         requests[combination + 1] = wrk.format("POST", submit_path, json_headers,
            '{"answers": ' .. answers .. '}')
      end
   else
      error("unknown BENCH_MODE " .. mode)
   end
end

function request()
   if mode == "submit_id" then
      local body = '{"answers": ' .. bodies[math.random(#bodies)]
         .. ', "response_id": "' .. random_response_id() .. '"}'
      return wrk.format("POST", submit_path, json_headers, body)
   end
   if #requests == 1 then
      return requests[1]
   end
   return requests[math.random(#requests)]
end

function response(status, headers, body)
   seen = seen + 1
   if status ~= expected then
      unexpected = unexpected + 1
      last_unexpected = tostring(status)
   end
   if limit > 0 and seen >= limit then
      wrk.thread:stop()
   end
end

function done(summary, latency, requests)
   local bad, last = 0, "-"
   for _, thread in ipairs(threads) do
      bad = bad + (thread:get("unexpected") or 0)
      local l = thread:get("last_unexpected")
      if l and l ~= "-" then last = l end
   end
   local e = summary.errors
   local seconds = summary.duration / 1e6
   io.write(string.format(
      "RESULT requests=%d duration_s=%.3f rps=%.1f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f "
         .. "max_ms=%.3f unexpected=%d last_unexpected=%s socket_errors=%d\n",
      summary.requests, seconds, summary.requests / seconds,
      latency:percentile(50) / 1000, latency:percentile(90) / 1000,
      latency:percentile(99) / 1000, latency.max / 1000,
      bad, last, e.connect + e.read + e.write + e.timeout))
end
