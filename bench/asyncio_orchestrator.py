#!/usr/bin/python3
"""A best-case Python debate orchestrator, the reference of bench/run.sh's HTTP row.

It runs the experiment of bench/http.yaml -- each task debated by 3 agents over 2 rounds (Du et
al.: an independent answer, then two rounds in which every agent sees its peers' latest
solutions), majority vote -- against the same OpenAI-compatible server, with asyncio and one
aiohttp session (256 connections, 256 calls in flight). It does the least an orchestrator must:
build append-only conversations, POST, decode the JSON reply, read "Answer: X" and vote. It
stores nothing and computes no metric, so its CPU per call is a floor for Python, not a rival
implementation of parley.

  asyncio_orchestrator.py --url http://127.0.0.1:PORT/v1 --tasks tasks.jsonl --limit 1000 \
      --summary OUT/summary.json

The summary has parley's shape for the fields procbench reads ({"protocols": [{"n", "calls_mean"}]}).
"""
import argparse
import asyncio
import collections
import json
import os
import re
import sys

import aiohttp

AGENTS = 3
ROUNDS = 2
IN_FLIGHT = 256
FORMAT = ('Think step by step. End your reply with two lines: "Answer: <option letter>" and '
          '"Confidence: <0-100>%".')
ANSWER = re.compile(r"^Answer:\s*\(?([A-Z])\b", re.MULTILINE)


def task_prompt(task):
    options = "\n".join(f"{chr(65 + i)}. {text}" for i, text in enumerate(task["options"]))
    return f"{task['question']}\n\n{options}\n\n{FORMAT}"


def peers_prompt(replies, me):
    shown = "".join(f"\n\nagent{j + 1}'s solution:\n```\n{text}\n```" for j, text in enumerate(replies) if j != me)
    return ("These are the solutions to the problem from other agents:" + shown +
            "\n\nUsing the solutions from other agents as additional information, give an updated answer to the "
            "original problem. " + FORMAT)


class Orchestrator:
    def __init__(self, session, url):
        self.session = session
        self.url = url + "/chat/completions"
        self.permits = asyncio.Semaphore(IN_FLIGHT)
        self.calls = 0

    async def chat(self, messages):
        async with self.permits:
            body = {"model": "fake", "messages": messages, "temperature": 0.7, "max_tokens": 1024}
            async with self.session.post(self.url, json=body) as response:
                response.raise_for_status()
                reply = await response.json()
        self.calls += 1
        return reply["choices"][0]["message"]["content"]

    async def debate(self, task):
        conversations = [[{"role": "user", "content": task_prompt(task)}] for _ in range(AGENTS)]
        replies = await asyncio.gather(*(self.chat(c) for c in conversations))
        for _ in range(ROUNDS):
            for me, conversation in enumerate(conversations):
                conversation.append({"role": "assistant", "content": replies[me]})
                conversation.append({"role": "user", "content": peers_prompt(replies, me)})
            replies = await asyncio.gather(*(self.chat(c) for c in conversations))
        votes = collections.Counter(m.group(1) for m in map(ANSWER.search, replies) if m)
        return votes.most_common(1)[0][0] if votes else None


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--tasks", required=True)
    parser.add_argument("--limit", type=int, default=1000)
    parser.add_argument("--summary", required=True)
    args = parser.parse_args()
    with open(args.tasks, encoding="utf-8") as lines:
        tasks = [json.loads(line) for line, _ in zip(lines, range(args.limit))]

    connector = aiohttp.TCPConnector(limit=IN_FLIGHT)
    async with aiohttp.ClientSession(connector=connector) as session:
        orchestrator = Orchestrator(session, args.url)
        answers = await asyncio.gather(*(orchestrator.debate(t) for t in tasks))
    if len(answers) != len(tasks):
        sys.exit("asyncio_orchestrator: a debate was lost")

    os.makedirs(os.path.dirname(args.summary) or ".", exist_ok=True)
    with open(args.summary, "w", encoding="utf-8") as out:
        json.dump({"orchestrator": "python asyncio + aiohttp " + aiohttp.__version__,
                   "protocols": [{"protocol": "debate", "n": len(tasks), "calls_mean": orchestrator.calls / len(tasks)}]},
                  out)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except aiohttp.ClientError as error:
        sys.exit(f"asyncio_orchestrator: {error}")
