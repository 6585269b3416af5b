-- wrk script for bench/attack.py. Two modes, chosen by the first script argument:
--
--   flood <paths-file> <threads>  sends its share of the file's lines once each, in order, then
--                             stops the thread (unique worst-case query URLs: nothing repeats);
--   bust <budget> <seed>      builds cache-busting requests with math.random and stops the
--                             thread after <budget> answers;
--   heavy <seed>              the heaviest answers, busted: /search-index.json?z=<random>,
--                             /search-texts.json and /timing?z=<random> in turn (#20 H2);
--   load <seed>               a reader's mix during a reload: entry pages, the index, search.
--
-- Every thread counts its answers per status in `response()`; `done()` prints one JSON line
-- with the totals, wrk's transport errors and whether a flood ran out of paths.

local threads = {}
local counter = 0

setup = function(thread)
  thread:set("offset", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

-- Thread state (globals, so that done() can read them with thread:get).
statuses = {}
answers = 0
exhausted = 0
local mode, budget, paths, next_path, sent = nil, 0, {}, 0, 0

-- Percent-encoded Hangul syllables, an alphanumeric pool for padding, the collection codes.
local syllables, pool = {}, ""
local letters = "abcdefghijklmnopqrstuvwxyz0123456789"
local codes = { "dwl", "ptc", "tfa", "tcu", "tde", "tic", "eoe", "side", "investigator",
                "parallel" }
local odd_cookies = { "owned =none", "owned= none", "owned=NONE", "owned=dwl..ptc",
                      'owned="dwl.ptc"', "owned=dwl.ptc; owned=tfa", "OWNED=dwl",
                      "owned=", "owned=.", "owned=none.dwl", "owned=%64wl", "x=1; owned=tic" }

local function prepare_bust(seed)
  math.randomseed(seed)
  for k = 0, 11171 do
    local cp = 0xAC00 + k
    syllables[#syllables + 1] = string.format("%%%02X%%%02X%%%02X",
      0xE0 + math.floor(cp / 4096), 0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
  end
  local chunk = {}
  for k = 1, 65536 do
    local at = math.random(#letters)
    chunk[k] = letters:sub(at, at)
  end
  pool = table.concat(chunk)
end

init = function(args)
  mode = args[1]
  if mode == "flood" then
    local k, every = 0, tonumber(args[3])
    for line in io.lines(args[2]) do
      if k % every == (offset or 0) then paths[#paths + 1] = line end
      k = k + 1
    end
  elseif mode == "heavy" or mode == "load" then
    math.randomseed(tonumber(args[2]) + 7919 * (offset or 0))
  else
    budget = tonumber(args[2])
    prepare_bust(tonumber(args[3]) + 7919 * (offset or 0))
  end
end

local heavy = { "/search-index.json?z=", "/search-texts.json", "/timing?z=" }
local readers = { "/rules/Attack_of_Opportunity", "/rules/Skill_Test_Timing", "/",
                  "/sources/ahlcg-reference", "/timing", "/api/search?q=%EB%8B%A8%EC%84%9C" }

local function random_text(max_len)
  local n, parts = math.random(max_len), {}
  if math.random() < 0.5 then
    for k = 1, n do parts[k] = syllables[math.random(#syllables)] end
    return table.concat(parts)
  end
  local at = math.random(#pool - n)
  return pool:sub(at, at + n - 1)
end

local function cookie()
  local pick = math.random()
  if pick < 0.6 then
    local chosen = {}
    for _, code in ipairs(codes) do
      if math.random() < 0.5 then chosen[#chosen + 1] = code end
    end
    return "owned=" .. (#chosen > 0 and table.concat(chosen, ".") or "none")
  elseif pick < 0.9 then
    return odd_cookies[math.random(#odd_cookies)]
  end
  return "owned=" .. random_text(40)
end

local function bust_path()
  sent = sent + 1
  local pick = math.random()
  if pick < 0.25 then
    return "/search?q=" .. random_text(200) .. "&page=" .. math.random(100)
  elseif pick < 0.5 then
    return "/api/search?q=" .. random_text(200) .. "&limit=" .. math.random(50)
      .. "&offset=" .. math.random(0, 1000)
  elseif pick < 0.7 then
    return "/api/suggest?q=" .. random_text(200)
  elseif pick < 0.85 then
    local n = math.random(15000, 16000)
    local at = math.random(#pool - n)
    return "/api/suggest?q=&p=" .. sent .. "&pad=" .. pool:sub(at, at + n - 1)
  end
  return "/rules/Attack_of_Opportunity?x=" .. random_text(100)
end

-- wrk's main thread sleeps for the whole -d duration whatever its threads do: "stop" on stdout
-- asks bench/attack.py to end the run with SIGINT, which wrk handles by summing up at once.
local announced = false
local function finish()
  if not announced then
    io.write("stop\n")
    io.flush()
    announced = true
  end
  wrk.thread:stop()
end

request = function()
  if mode == "flood" then
    next_path = next_path + 1
    if next_path > #paths then
      -- Out of unique paths: stop rather than repeat one (this last request is not an attack).
      exhausted = 1
      finish()
      return wrk.format("GET", "/healthz")
    end
    return wrk.format("GET", paths[next_path])
  end
  local headers = {}
  if math.random() < 0.5 then headers["Accept-Encoding"] = "gzip" end
  if mode == "heavy" then
    sent = sent + 1
    local path = heavy[sent % #heavy + 1]
    if path:sub(-1) == "=" then path = path .. math.random(1, 2000000000) end
    return wrk.format("GET", path, headers)
  elseif mode == "load" then
    sent = sent + 1
    return wrk.format("GET", readers[sent % #readers + 1], headers)
  end
  if math.random() < 0.3 then headers["Cookie"] = cookie() end
  return wrk.format("GET", bust_path(), headers)
end

response = function(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  answers = answers + 1
  if mode == "bust" and answers >= budget then finish() end
end

done = function(summary, latency, requests)
  local total, ran_out = {}, 0
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("statuses")) do
      total[status] = (total[status] or 0) + n
    end
    ran_out = ran_out + thread:get("exhausted")
  end
  local parts = {}
  for status, n in pairs(total) do parts[#parts + 1] = string.format('"%d": %d', status, n) end
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, "max_us": %d, '
    .. '"connect": %d, "read": %d, "write": %d, "timeout": %d, "exhausted": %d, '
    .. '"statuses": {%s}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    latency.max, e.connect, e.read, e.write, e.timeout, ran_out, table.concat(parts, ", ")))
end
