"""What the KB holds, as lists: GPUs, instance sizes and models with their reference facts; sources and claims."""
