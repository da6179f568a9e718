"""The suite tests the installed wheel, not the source tree."""

import os
import sys

import punctual
import punctual._punctual


def test_punctual_comes_from_the_installed_wheel():
    assert "site-packages" in punctual.__file__, punctual.__file__
    assert os.path.dirname(punctual._punctual.__file__) == os.path.dirname(punctual.__file__)
    assert os.path.exists(os.path.join(os.path.dirname(punctual.__file__), "py.typed"))
    assert os.path.exists(os.path.join(os.path.dirname(punctual.__file__), "_punctual.pyi"))
    assert sys.prefix != sys.base_prefix, "not running in a virtualenv"


def test_python_m_punctual_entry_points_import():
    import punctual.__main__  # noqa: F401
    import punctual.bench  # noqa: F401
