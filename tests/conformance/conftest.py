import pytest

from tests.conformance.harness import Served, record_coverage


@pytest.fixture
def served(request):
    s = Served()
    yield s
    record_coverage(request.node.nodeid, s.rest_calls())
    s.stop()
