"""Stage 1, read: a PDF or image in, a :class:`~renderkit.parsing.Document` of words out.

- :mod:`.document`: decoding and sniffing the file, a PDF's text layer through PDFium, and
  sending pages without one (and images) to an OCR engine.
- :mod:`.ocr`: the :class:`~renderkit.parsing.OcrEngine` protocol and the choice of engine by
  name; the engines: :mod:`.rapidocr` (PP-OCR models run offline through ONNX Runtime) and
  :mod:`.tesseract` (the Tesseract program).
"""
