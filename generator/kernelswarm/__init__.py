"""kernelswarm"""
