"""The HTTP service players' phones talk to: the API, its storage, and the phone web page."""
