"""The HTTP service and the phone web page (issue 5)."""
