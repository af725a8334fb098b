"""torch >= 2's global optimizer step hooks, as torch.optim.optimizer defines them (the API only)."""
_pre_hooks = []
_post_hooks = []


def register_optimizer_step_pre_hook(hook):
    _pre_hooks.append(hook)


def register_optimizer_step_post_hook(hook):
    _post_hooks.append(hook)


class Optimizer(object):
    def step(self):
        for hook in _pre_hooks:
            hook(self, (), {})
        for hook in _post_hooks:
            hook(self, (), {})
