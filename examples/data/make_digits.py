"""Writes digits.txt, the fixture of examples/lenet.cpp, from the 8x8
handwritten digits that scikit-learn ships (sklearn.datasets.load_digits:
1797 images, pixel values 0..16). Run once, with scikit-learn installed:

    python3 examples/data/make_digits.py > examples/data/digits.txt

Format: '#' lines are comments; every other line is one image: its label
(0-9), a space, then its 64 pixels row by row, each one character of
"0123456789abcdefg" (the values 0..16).
"""
import sklearn
from sklearn.datasets import load_digits

ALPHABET = "0123456789abcdefg"

d = load_digits()
print("# The 8x8 handwritten digits of scikit-learn %s (sklearn.datasets.load_digits)." % sklearn.__version__)
print("# A copy of the test set of the UCI ML 'Optical Recognition of Handwritten Digits' data")
print("# (E. Alpaydin, C. Kaynak, 1998; CC BY 4.0), as shipped in scikit-learn (BSD-3-Clause).")
print("# Made by examples/data/make_digits.py; see examples/data/README.md. %d images." % len(d.target))
print("# label pixels(64, row-major, one character each of 0123456789abcdefg = 0..16)")
for img, label in zip(d.data.astype(int), d.target):
    assert 0 <= label <= 9 and all(0 <= v <= 16 for v in img)
    print("%d %s" % (label, "".join(ALPHABET[v] for v in img)))
