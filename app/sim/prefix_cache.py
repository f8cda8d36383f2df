"""The KV block pool with automatic prefix caching, as vLLM V1's block pool keeps it.

A block is named by a chained hash: hash(parent block's hash, this block's token ids), so a
block's name stands for its whole prefix and two prompts that agree on their first N full
blocks share those N blocks. Only full blocks are cached. A cached block held by no running
request stays in the pool as "evictable": it counts as free (vLLM's KV usage counts it free
too) and is reused when a later prompt starts with the same tokens, until an allocation
needs the room and takes the least recently freed one (LRU). Blocks that never held a
cacheable prefix are handed out first.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Sequence

# The hash of "no parent": any fixed value distinct from ordinary hashes will do.
_ROOT_HASH = 0x5F3759DF


def block_hashes(
    token_ids: Sequence[int], block_size: int, start: int = 0, parent: int = 0
) -> list[int]:
    """Chained hashes of the full blocks of `token_ids` from block index `start` on.

    `parent` is the hash of block `start - 1` (ignored when start is 0). Python's hash of a
    tuple of ints is the same in every process, so the chain is reproducible.
    """
    hashes: list[int] = []
    prev = _ROOT_HASH if start == 0 else parent
    for begin in range(start * block_size, len(token_ids) - block_size + 1, block_size):
        prev = hash((prev, tuple(token_ids[begin : begin + block_size])))
        hashes.append(prev)
    return hashes


class BlockPool:
    """Counts of free KV blocks plus the cache of full blocks by hash, with reference counts."""

    def __init__(self, num_blocks: int, *, enable_caching: bool = True) -> None:
        self.num_blocks = num_blocks
        self.enable_caching = enable_caching
        self.empty = num_blocks  # free blocks that hold no cached prefix
        self.refs: dict[int, int] = {}  # cached block hash -> running requests holding it
        # Cached blocks nobody holds, least recently freed first: evicted from the front.
        self.evictable: collections.OrderedDict[int, None] = collections.OrderedDict()
        self.evictions = 0

    @property
    def free(self) -> int:
        return self.empty + len(self.evictable)

    def longest_hit(self, hashes: Sequence[int], max_blocks: int) -> int:
        """How many leading blocks of `hashes` (at most max_blocks) are in the cache."""
        if not self.enable_caching:
            return 0
        hit = 0
        refs = self.refs
        for h in hashes[:max_blocks]:
            if h not in refs:
                break
            hit += 1
        return hit

    def evictable_among(self, hashes: Iterable[int]) -> int:
        """How many of these cached blocks are free now (holding one takes it off the free list)."""
        return sum(1 for h in hashes if self.refs[h] == 0)

    def hold(self, hashes: Iterable[int]) -> None:
        """A request starts using these cached blocks (a prefix hit)."""
        for h in hashes:
            if self.refs[h] == 0:
                del self.evictable[h]
            self.refs[h] += 1

    def allocate(self, n: int) -> None:
        """Take n blocks for new tokens: empty ones first, then evict the LRU cached ones."""
        if n > self.free:
            raise RuntimeError(f"allocate({n}) with {self.free} free blocks")
        take = min(n, self.empty)
        self.empty -= take
        for _ in range(n - take):
            h, _ = self.evictable.popitem(last=False)
            del self.refs[h]
            self.evictions += 1

    def register(self, h: int) -> bool:
        """A request's own full block (already allocated) becomes the cached block `h`.

        False if `h` is cached already (another request computed the same prefix meanwhile):
        that copy stays the request's private block, as in vLLM, which keeps the first.
        """
        if not self.enable_caching or h in self.refs:
            return False
        self.refs[h] = 1
        return True

    def release(self, cached: Sequence[int], private: int) -> None:
        """A request frees its blocks: the private ones become empty, the cached ones are kept
        for reuse. They are queued tail block first, so a prompt's last blocks are evicted
        before its first ones, which more prompts share (vLLM frees in the same order)."""
        self.empty += private
        for h in reversed(cached):
            left = self.refs[h] - 1
            self.refs[h] = left
            if left == 0:
                self.evictable[h] = None

    def reset(self) -> None:
        """Forget every cached prefix (vLLM's /reset_prefix_cache): free cached blocks become
        empty. The engine first turns blocks running requests hold into their private ones."""
        self.empty += len(self.evictable)
        self.evictable.clear()
        self.refs.clear()
