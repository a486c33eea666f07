-- wrk script for bench/serve-gateway.sh: every request is one chat completion POST, to parley serve
-- (model $PARLEY_MODEL, one debate each) or straight to the backend (model "fake").
wrk.method = "POST"
wrk.path = "/v1/chat/completions"
wrk.headers["Content-Type"] = "application/json"
local model = os.getenv("PARLEY_MODEL") or "single"
wrk.body = '{"model":"' .. model .. '","messages":[{"role":"user","content":"Benchmark question number 17: which option is right?\\nA) w17\\nB) x17\\nC) y17\\nD) z17"}]}'

-- Every non-200 is counted by wrk ("Non-2xx or 3xx responses"); bench/serve-gateway.sh refuses such a run.
