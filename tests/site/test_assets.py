"""The assets folder is found in a wheel and in a checkout, and static files are copied under hashed names."""

from __future__ import annotations

import hashlib

import pytest

from tests.helpers import ROOT
from wismo.sitegen.assets import assets_dir, copy_static, hashed_name
from wismo.sitegen.errors import SiteError


def test_checkout_uses_the_top_level_site_folder():
    assert assets_dir() == ROOT / "site"
    assert (assets_dir() / "templates" / "base.html").is_file()


def test_installed_wheel_uses_the_package_site_folder(tmp_path):
    package = tmp_path / "lib" / "wismo"
    (package / "site" / "templates").mkdir(parents=True)
    assert assets_dir(package) == package / "site"


def test_checkout_branch_when_the_package_has_no_site_folder(tmp_path):
    package = tmp_path / "src" / "wismo"
    package.mkdir(parents=True)
    (tmp_path / "src" / "site" / "templates").mkdir(parents=True)
    assert assets_dir(package) == tmp_path / "src" / "site"


def test_missing_assets_raise_a_site_error(tmp_path):
    package = tmp_path / "wismo"
    package.mkdir()
    with pytest.raises(SiteError, match="templates are missing"):
        assets_dir(package)


def test_static_files_are_copied_with_a_content_hash(tmp_path):
    urls = copy_static(assets_dir(), tmp_path)
    assert set(urls) == {"style.css", "site.js", "review.js", "review-filter.js"}
    for name, url in urls.items():
        copied = tmp_path / url
        assert copied.is_file()
        digest = hashlib.sha256((assets_dir() / "static" / name).read_bytes()).hexdigest()[:8]
        assert copied.name == f"{name.rsplit('.', 1)[0]}.{digest}.{name.rsplit('.', 1)[1]}"


def test_a_changed_file_gets_a_new_name(tmp_path):
    path = tmp_path / "a.css"
    path.write_text("a {}")
    first = hashed_name(path)
    path.write_text("a { color: red }")
    assert hashed_name(path) != first
