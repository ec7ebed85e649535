"""Language-model fill-ins (`--auto llm`) over an OpenAI-compatible endpoint (vLLM, llama.cpp, ollama, OpenAI).

config     where the endpoint, model and limits come from (flags > environment > config file > defaults)
transport  one chat request and its failures (ChatClient, OpenAIChat)
recording  every exchange written next to the session, and replayed from it (ReplayChat)
failures   the three failures callers tell apart, and the scrubbing of the key from any text
describe   the program, its data and the hardware, as the model is told them (once per space)
prompt     the prompt of one question: the sketch and the menus of the holes asked
answer     the answer's JSON schema, tolerant parsing, validation against the menus
strategy   the search: questions, a beam ranked by the cost hints, simulator confirmation, fallback
ranked_plans  `--top K`: the best plans side by side, and the user's pick

Nothing here imports `openai` until a real client is built, so commands that never ask a
model do not pay for it.
"""
