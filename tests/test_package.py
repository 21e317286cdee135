"""The public surface: every exported name exists, is documented, and type-hinted."""

import inspect

import posenc


def test_all_names_exist_and_are_documented():
    for name in posenc.__all__:
        obj = getattr(posenc, name)
        doc = inspect.getdoc(obj) or ""
        assert len(doc.splitlines()) >= 3, f"{name} needs a real docstring"


def test_public_functions_are_fully_type_hinted():
    for name in posenc.__all__:
        obj = getattr(posenc, name)
        # a NamedTuple's fields are its constructor's parameters
        named_tuple = inspect.isclass(obj) and issubclass(obj, tuple) and hasattr(obj, "_fields")
        fn = obj if named_tuple or not inspect.isclass(obj) else obj.__init__
        sig = inspect.signature(fn)
        missing = [
            p
            for p, v in sig.parameters.items()
            if p != "self" and v.annotation is inspect.Parameter.empty
        ]
        assert not missing, f"{name}: parameters without type hints: {missing}"
        if not inspect.isclass(obj):
            assert sig.return_annotation is not inspect.Signature.empty, (
                f"{name}: no return annotation"
            )


def test_sources_compile_without_warnings():
    """Catches invalid escapes such as an unescaped backslash in a docstring's math."""
    import pathlib
    import warnings

    root = pathlib.Path(posenc.__file__).parent
    for path in sorted(root.rglob("*.py")):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compile(path.read_text(), str(path), "exec")
