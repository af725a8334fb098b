# A stand-in for torch >= 2 in tests/local/telemetry_steps_test.sh: only what the step hook uses of it, the global
# optimizer step hooks (torch.optim.optimizer.register_optimizer_step_pre_hook / _post_hook). Debian 12 packages
# torch 1.13, which has no such hooks; this checks the hook's torch >= 2 path calls them as torch 2 documents.
