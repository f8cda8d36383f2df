"""Server-side figures: the /metrics text of vLLM, SGLang and llama.cpp, scraped during a point."""
