"""Language-model fill-ins (`--auto llm`): the prompt, the transport, the answer."""
