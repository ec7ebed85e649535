"""Talking to a language model over an OpenAI-compatible endpoint (vLLM, llama.cpp, ollama, OpenAI).

config     where the endpoint, model and limits come from (flags > environment > config file > defaults)
transport  one chat request and its failures (ChatClient, OpenAIChat, ReplayChat)
recording  every exchange written next to the session, and read back for replay
errors     the three failures callers tell apart, and the scrubbing of the key from any text

Nothing here imports `openai` until a real client is built, so commands that never ask a
model do not pay for it.
"""
