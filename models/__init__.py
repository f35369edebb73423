"""Trained ONNX model files and their model card, installed as the package `vision.models`."""
