"""A repository's identity across machines: the normalized `origin` URL read from the
repository's config file (worktrees and submodules too), else its root commit, else its name."""
from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import given, settings as hypothesis_settings, strategies as st

from obsidian_memory.core import gitinfo
from obsidian_memory.core.gitinfo import normalize_remote_url

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="needs the git command, which is not installed here")


# -- the URL spellings of one repository -----------------------------------------------------------

@pytest.mark.parametrize("url", [
    "git@github.com:owner/repo.git",
    "git@github.com:owner/repo",
    "https://github.com/owner/repo",
    "https://github.com/owner/repo.git",
    "https://github.com/owner/repo/",
    "https://user:ghp_secrettoken@github.com/owner/repo.git",
    "https://x-access-token:abc123@GitHub.com/Owner/Repo.git",
    "http://github.com:80/owner/repo",
    "ssh://git@github.com/owner/repo",
    "ssh://git@github.com:22/owner/repo.git/",
    "git+ssh://git@github.com/owner/repo.git",
    "git://github.com/owner/repo.git",
    "  https://github.com/owner/repo.git  ",
])
def test_every_spelling_of_one_github_repository_gives_one_identity(url):
    assert normalize_remote_url(url) == "github.com/owner/repo"


@pytest.mark.parametrize("url", [
    "git@ssh.dev.azure.com:v3/org/project/repo",
    "https://org@dev.azure.com/org/project/_git/repo",
    "https://dev.azure.com/org/project/_git/repo",
    "https://org.visualstudio.com/project/_git/repo",
    "https://org.visualstudio.com/DefaultCollection/project/_git/repo",
])
def test_azure_devops_ssh_and_https_forms_are_one_repository(url):
    assert normalize_remote_url(url) == "dev.azure.com/org/project/repo"


@pytest.mark.parametrize("url", ["/srv/git/repo.git", "../repo", "./repo", "file:///srv/git/repo.git",
                                 "C:\\src\\repo", "C:/src/repo", "repo", "", "   ", "https://github.com",
                                 "https://github.com/", "git@github.com:", "a\nb:c/d"])
def test_a_local_path_or_a_url_without_a_repository_names_nothing_shared(url):
    assert normalize_remote_url(url) is None


def test_gitlab_subgroups_and_self_hosted_ports_keep_the_path():
    assert normalize_remote_url("ssh://git@gitlab.example.com:2222/group/sub/repo.git") == \
        "gitlab.example.com/group/sub/repo"
    assert normalize_remote_url("https://gitlab.example.com/group/sub/repo") == "gitlab.example.com/group/sub/repo"


_NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_", min_size=1, max_size=12) \
    .filter(lambda s: not s.lower().endswith(".git") and s not in (".", ".."))
_HOST = st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8),
                 min_size=2, max_size=3).map(".".join)
_SECRET = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=12, max_size=24).map(lambda s: "tok" + s)


def spellings(host: str, path: str, user: str, secret: str, port: int) -> list[str]:
    return [
        f"git@{host}:{path}.git",
        f"{user}@{host}:{path}",
        f"https://{host}/{path}",
        f"https://{host}/{path}.git/",
        f"https://{user}:{secret}@{host}/{path}.git",
        f"https://{secret}@{host.upper()}:{port}/{path}",
        f"ssh://git@{host}/{path}",
        f"ssh://{user}@{host}:{port}/{path}.git",
        f"git://{host}/{path}",
        f"http://{host}/{path}/",
    ]


@hypothesis_settings(max_examples=300, deadline=None)
@given(host=_HOST, parts=st.lists(_NAME, min_size=1, max_size=3), user=_NAME, secret=_SECRET,
       port=st.integers(1, 65535))
def test_property_all_spellings_agree_and_no_credential_survives(host, parts, user, secret, port):
    path = "/".join(parts)
    found = {normalize_remote_url(url) for url in spellings(host, path, user, secret, port)}
    assert found == {f"{host}/{path}".lower()}
    identity = found.pop()
    assert secret.lower() not in identity and "@" not in identity and ":" not in identity
    assert normalize_remote_url("https://" + identity) == identity   # a fixed point


@hypothesis_settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_property_any_text_gives_an_identity_or_none_never_an_error(text):
    identity = normalize_remote_url(text)
    assert identity is None or (identity == identity.lower() and "\n" not in identity and not identity.endswith("/"))


# -- reading the repository's config file ----------------------------------------------------------

def git(*args, cwd=None):
    subprocess.run([GIT, *args], cwd=cwd, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(cwd or "."), "PATH": "/usr/bin:/bin"})


@needs_git
def test_the_origin_remote_is_read_from_the_config_file_in_a_subfolder_and_a_worktree(tmp_path):
    repo = tmp_path / "src" / "proj"
    repo.mkdir(parents=True)
    git("init", "-q", str(repo), cwd=tmp_path)
    git("remote", "add", "upstream", "https://github.com/someone/else.git", cwd=repo)
    git("remote", "add", "origin", "git@github.com:Owner/Proj.git", cwd=repo)
    (repo / "a.txt").write_text("a")
    git("add", "a.txt", cwd=repo)
    git("commit", "-qm", "first", cwd=repo)
    git("worktree", "add", "-q", str(tmp_path / "proj-feature"), cwd=repo)
    (repo / "deep" / "er").mkdir(parents=True)
    for folder in (repo, repo / "deep" / "er", tmp_path / "proj-feature"):
        assert gitinfo.remote_identity(str(folder)) == "github.com/owner/proj"
        assert gitinfo.repo_identity(str(folder)) == "github.com/owner/proj"
    assert gitinfo.repo_identity(str(tmp_path)) is None   # not in a repository


@needs_git
def test_without_a_remote_the_root_commit_names_the_repository_in_every_clone(tmp_path):
    repo = tmp_path / "one"
    repo.mkdir()
    git("init", "-q", str(repo), cwd=tmp_path)
    (repo / "a.txt").write_text("a")
    git("add", "a.txt", cwd=repo)
    git("commit", "-qm", "first", cwd=repo)
    git("clone", "-q", str(repo), str(tmp_path / "two"), cwd=tmp_path)
    git("remote", "remove", "origin", cwd=tmp_path / "two")   # (origin was a local path: no shared name anyway)
    first = gitinfo.repo_identity(str(repo), run_git=True)
    assert first.startswith("git:") and len(first) == 44
    assert gitinfo.repo_identity(str(tmp_path / "two"), run_git=True) == first
    # SessionStart runs no git: it takes what the archive found, else the folder's name
    assert gitinfo.repo_identity(str(repo), known=lambda root: first if root == str(repo) else None) == first
    assert gitinfo.repo_identity(str(repo)) == "name:one"


def test_a_hand_written_config_with_quotes_comments_and_odd_spacing_is_read(tmp_path):
    repo = tmp_path / "proj"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text(
        '[core]\n\tbare = false\n[remote "fork"]\n\turl = https://example.com/fork/proj\n'
        '[Remote "origin"] # the main one\n\tURL = "git@example.com:team/proj.git" ; a comment\n'
        '\tfetch = +refs/heads/*:refs/remotes/origin/*\n', encoding="utf-8")
    assert gitinfo.remote_identity(str(repo)) == "example.com/team/proj"
    (repo / ".git" / "config").write_text('[remote "fork"]\n\turl = https://example.com/fork/proj\n', encoding="utf-8")
    assert gitinfo.remote_identity(str(repo)) == "example.com/fork/proj"   # no origin: the first remote
    (repo / ".git" / "config").write_bytes(b'[remote "origin"]\n\turl = /srv/local/proj.git\n\xff\xfe')
    assert gitinfo.remote_identity(str(repo)) is None   # a local path names nothing another machine has


def test_a_submodule_reads_its_own_config(tmp_path):
    modules = tmp_path / "super" / ".git" / "modules" / "lib"
    modules.mkdir(parents=True)
    (modules / "config").write_text('[remote "origin"]\n\turl = https://github.com/o/lib\n', encoding="utf-8")
    lib = tmp_path / "super" / "lib"
    lib.mkdir()
    (lib / ".git").write_text("gitdir: ../.git/modules/lib\n", encoding="utf-8")
    assert gitinfo.remote_identity(str(lib)) == "github.com/o/lib"
    assert gitinfo.find_repo(str(lib)) == (str(lib), str(lib))
