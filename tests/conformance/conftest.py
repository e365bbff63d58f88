import pytest

from clawarena.server.tls import make_self_signed
from tests.conformance.harness import Served, record_coverage


@pytest.fixture
def served(request):
    s = Served()
    yield s
    record_coverage(request.node.nodeid, s.rest_calls())
    s.stop()


@pytest.fixture(scope="session")
def tls_pair(tmp_path_factory):
    """(certfile, keyfile) of a self-signed certificate for 127.0.0.1: pass to `served.start(..., tls=tls_pair)`."""
    pair = make_self_signed(tmp_path_factory.mktemp("tls"))
    return str(pair.certfile), str(pair.keyfile)
