"""The built-in simulated vLLM server: continuous batching on a roofline cost model."""
