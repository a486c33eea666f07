-- wrk script for bench/run.sh: every request is one chat completion POST to the fake server,
-- with a body the size of a debate's first-round request.
wrk.method = "POST"
wrk.path = "/v1/chat/completions"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"model":"fake","messages":[{"role":"user","content":"Benchmark question number 17: which option is right?\\n\\nA. w17\\nB. x17\\nC. y17\\nD. z17\\n\\nThink step by step. End your reply with two lines: \\"Answer: <option letter>\\" and \\"Confidence: <0-100>%\\"."}],"temperature":0.7,"max_tokens":1024}'
