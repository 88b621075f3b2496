"""Stage 1, read: a PDF or image in, a :class:`~renderkit.parsing.Document` of words out.

- :mod:`.document`: decoding and sniffing the file, a PDF's text layer through PDFium, and
  sending pages without one (and images) to an OCR engine.
- :mod:`.ocr`: the :class:`~renderkit.parsing.OcrEngine` protocol, Tesseract, and the choice
  of engine by name; :mod:`.rapidocr`: the PP-OCR engine run offline through ONNX Runtime.
"""
