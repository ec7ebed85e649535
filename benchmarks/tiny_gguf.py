"""A tiny Llama-architecture GGUF model with random weights and a real tokenizer, for checking
`--auto llm` against real servers without downloading a model (docs/llm.md, "Real servers").

The tokenizer comes from one of the vocabulary-only GGUF files that llama.cpp keeps in its
`models/` folder (they ship in llama-cpp-python's source archive: `pip download --no-deps
llama-cpp-python`, then `vendor/llama.cpp/models/ggml-vocab-*.gguf`); the weights are random,
so the model answers nonsense, but the servers tokenize, template, constrain and time it as
they would a real one. Needs `pip install gguf numpy` (gguf is not a project dependency).

    python benchmarks/tiny_gguf.py .../ggml-vocab-llama-bpe.gguf tiny.gguf
    python -m llama_cpp.server --model tiny.gguf --n_ctx 8192 --port 8000
    llama-server -m tiny.gguf -c 8192 --port 8080
"""

from __future__ import annotations

import argparse

import numpy as np

EMBEDDING, HEADS, LAYERS, FEED_FORWARD, CONTEXT = 64, 4, 2, 128, 16384
#: ChatML, so that both servers format the messages the same way
CHAT_TEMPLATE = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
                 "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def write_tiny_model(vocabulary: str, output: str, seed: int = 0) -> int:
    """Write the model; returns its vocabulary size."""
    import gguf

    reader = gguf.GGUFReader(vocabulary)
    vocab_size = len(reader.fields["tokenizer.ggml.tokens"].data)
    writer = gguf.GGUFWriter(output, "llama")
    writer.add_name("tiny-random")
    writer.add_block_count(LAYERS)
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(EMBEDDING)
    writer.add_feed_forward_length(FEED_FORWARD)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(HEADS)
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_dimension_count(EMBEDDING // HEADS)
    writer.add_vocab_size(vocab_size)
    writer.add_file_type(0)  # all tensors f32
    for key, field in reader.fields.items():  # the tokenizer as the vocabulary file has it
        if key.startswith("tokenizer.") and key != "tokenizer.chat_template":
            sub_type = field.types[1] if field.types[0] == gguf.GGUFValueType.ARRAY else None
            writer.add_key_value(key, field.contents(), field.types[0], sub_type=sub_type)
    writer.add_chat_template(CHAT_TEMPLATE)

    rng = np.random.default_rng(seed)

    def weights(name: str, *shape: int) -> None:
        writer.add_tensor(name, (rng.standard_normal(shape) * 0.02).astype(np.float32))

    def norm(name: str) -> None:
        writer.add_tensor(name, np.ones(EMBEDDING, np.float32))

    weights("token_embd.weight", vocab_size, EMBEDDING)
    norm("output_norm.weight")
    weights("output.weight", vocab_size, EMBEDDING)
    for layer in range(LAYERS):
        norm(f"blk.{layer}.attn_norm.weight")
        for part in ("q", "k", "v", "output"):
            weights(f"blk.{layer}.attn_{part}.weight", EMBEDDING, EMBEDDING)
        norm(f"blk.{layer}.ffn_norm.weight")
        weights(f"blk.{layer}.ffn_gate.weight", FEED_FORWARD, EMBEDDING)
        weights(f"blk.{layer}.ffn_up.weight", FEED_FORWARD, EMBEDDING)
        weights(f"blk.{layer}.ffn_down.weight", EMBEDDING, FEED_FORWARD)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return vocab_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vocabulary", help="a vocabulary-only GGUF (llama.cpp's models/ggml-vocab-*.gguf)")
    parser.add_argument("output", help="the model file to write")
    args = parser.parse_args()
    print(f"{args.output}: vocabulary of {write_tiny_model(args.vocabulary, args.output):,} tokens")


if __name__ == "__main__":
    main()
