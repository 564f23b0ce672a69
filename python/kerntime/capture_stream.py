"""Graph mode needs a stream that can be captured, and the legacy default stream (0, PyTorch's
default) cannot be. When the stream kerntime would measure is 0 and PyTorch is loaded, a side
stream of the same device is made current while fn runs (as torch.cuda.graph does); it first
waits for the current stream, so the inputs are ready. Without PyTorch the stream is left as it
is, and the engine names the problem (NotCapturable) and the fix (pass ``stream=``)."""

from __future__ import annotations

import sys

from .streams import StreamChoice


def capturable(choice: StreamChoice) -> StreamChoice:
    if choice.handle != 0:
        return choice
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_available():
        return choice
    device = choice.device if choice.device >= 0 else torch.cuda.current_device()
    side = torch.cuda.Stream(device)
    side.wait_stream(torch.cuda.current_stream(device))
    return StreamChoice(int(side.cuda_stream), device, torch.cuda.stream(side),
                        "a side stream for the capture (the chosen stream was the legacy default)")
