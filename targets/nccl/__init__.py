"""The NCCL/MSCCL target: MSCCL XML emission, execution on torch.distributed (gloo), and NCCL's own algorithms and tuner as the comparison."""
