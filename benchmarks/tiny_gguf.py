"""A tiny Llama-architecture GGUF model with random weights and a real tokenizer, for checking
`--auto llm` against real servers without downloading a model (docs/llm.md, "Real servers").

The tokenizer comes from one of the vocabulary-only GGUF files that llama.cpp keeps in its
`models/` folder (they ship in llama-cpp-python's source archive: `pip download --no-deps
llama-cpp-python`, then `vendor/llama.cpp/models/ggml-vocab-*.gguf`); the weights are random,
so the model answers nonsense, but the servers tokenize, template, constrain and time it as
they would a real one. Needs `pip install gguf numpy` (gguf is not a project dependency).

    python benchmarks/tiny_gguf.py .../ggml-vocab-llama-bpe.gguf tiny.gguf
    python benchmarks/tiny_gguf.py .../ggml-vocab-qwen2.gguf q15.gguf --shape qwen2.5-1.5b

`--shape` writes a model of a real one's size (layers, widths, attention heads, Q8_0 weights)
instead of the tiny one: its answers are still nonsense, but a server spends on each token
what the real model would, so the time per answer on a CPU can be measured without it.
    python -m llama_cpp.server --model tiny.gguf --n_ctx 8192 --port 8000
    llama-server -m tiny.gguf -c 8192 --port 8080
"""

from __future__ import annotations

import argparse

import numpy as np

CONTEXT = 16384
#: (embedding, attention heads, key/value heads, layers, feed-forward width) of each shape: the
#: published configurations of Qwen2.5 0.5B and 1.5B Instruct and Llama 3.2 1B Instruct
SHAPES = {
    "tiny": (64, 4, 4, 2, 128),
    "qwen2.5-0.5b": (896, 14, 2, 24, 4864),
    "qwen2.5-1.5b": (1536, 12, 2, 28, 8960),
    "llama-3.2-1b": (2048, 32, 8, 16, 8192),
}
#: ChatML, so that both servers format the messages the same way
CHAT_TEMPLATE = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
                 "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def write_tiny_model(vocabulary: str, output: str, seed: int = 0, shape: str = "tiny") -> int:
    """Write the model; returns its vocabulary size. The tiny shape is stored in f32, the
    others in Q8_0 (a common CPU choice; a 4-bit model computes faster)."""
    import gguf

    EMBEDDING, HEADS, KV_HEADS, LAYERS, FEED_FORWARD = SHAPES[shape]
    quantized = shape != "tiny"

    reader = gguf.GGUFReader(vocabulary)
    vocab_size = len(reader.fields["tokenizer.ggml.tokens"].data)
    writer = gguf.GGUFWriter(output, "llama")
    writer.add_name("tiny-random")
    writer.add_block_count(LAYERS)
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(EMBEDDING)
    writer.add_feed_forward_length(FEED_FORWARD)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(KV_HEADS)
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_dimension_count(EMBEDDING // HEADS)
    writer.add_vocab_size(vocab_size)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0 if quantized else gguf.LlamaFileType.ALL_F32)
    for key, field in reader.fields.items():  # the tokenizer as the vocabulary file has it
        if key.startswith("tokenizer.") and key != "tokenizer.chat_template":
            sub_type = field.types[1] if field.types[0] == gguf.GGUFValueType.ARRAY else None
            writer.add_key_value(key, field.contents(), field.types[0], sub_type=sub_type)
    writer.add_chat_template(CHAT_TEMPLATE)

    rng = np.random.default_rng(seed)

    def weights(name: str, *shape: int) -> None:
        values = (rng.standard_normal(shape, dtype=np.float32) * 0.02)
        if quantized:
            kind = gguf.GGMLQuantizationType.Q8_0
            writer.add_tensor(name, gguf.quants.quantize(values, kind), raw_dtype=kind)
        else:
            writer.add_tensor(name, values)

    def norm(name: str) -> None:
        writer.add_tensor(name, np.ones(EMBEDDING, np.float32))

    weights("token_embd.weight", vocab_size, EMBEDDING)
    norm("output_norm.weight")
    weights("output.weight", vocab_size, EMBEDDING)
    for layer in range(LAYERS):
        norm(f"blk.{layer}.attn_norm.weight")
        kv_width = EMBEDDING // HEADS * KV_HEADS  # grouped-query attention: fewer key/value heads
        for part, rows in (("q", EMBEDDING), ("k", kv_width), ("v", kv_width), ("output", EMBEDDING)):
            weights(f"blk.{layer}.attn_{part}.weight", rows, EMBEDDING)
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
    parser.add_argument("--shape", choices=sorted(SHAPES), default="tiny",
                        help="the model's size: tiny (default) or that of a real model")
    args = parser.parse_args()
    size = write_tiny_model(args.vocabulary, args.output, shape=args.shape)
    print(f"{args.output}: {args.shape}, vocabulary of {size:,} tokens")


if __name__ == "__main__":
    main()
