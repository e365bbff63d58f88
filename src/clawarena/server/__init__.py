"""The REST face of a world: wire styles, the generated routes, /_admin, uvicorn.

This layer sits above the gateway: it turns HTTP requests into gateway calls and
gateway outcomes into each API family's responses. Services know nothing of it.
"""
