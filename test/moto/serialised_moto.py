"""moto's server with its DynamoDB requests taken one at a time.

moto applies an UpdateItem's condition and its actions to the stored item without a lock, so two
simultaneous writes to one item can interleave: a claim can pass its condition on a redrive's new
generation and still read the redrive's old budget. DynamoDB applies each write to an item
atomically, and Ricochet's lease and generation checks rely on that. Serialising moto's DynamoDB
requests restores the guarantee; SQS and every other service stay threaded, so long polls still
wait side by side. Started by test/moto/start-moto.ts with the arguments of `moto.server`.
"""

import os
import sys
import threading

from werkzeug.serving import run_simple

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

DYNAMODB_TARGET = "DynamoDB_20120810."


def serialise_dynamodb(app):
    lock = threading.Lock()

    def wrapped(environ, start_response):
        if not environ.get("HTTP_X_AMZ_TARGET", "").startswith(DYNAMODB_TARGET):
            return app(environ, start_response)
        with lock:
            # The body is produced inside the lock too: the answer is read from the item.
            return list(app(environ, start_response))

    return wrapped


def main(argv):
    host, port = argv[argv.index("-H") + 1], int(argv[argv.index("-p") + 1])
    # moto builds queue URLs from it, as `python -m moto.server` sets it.
    os.environ.setdefault("MOTO_PORT", str(port))
    app = DomainDispatcherApplication(create_backend_app)
    run_simple(host, port, serialise_dynamodb(app), threaded=True)


if __name__ == "__main__":
    main(sys.argv[1:])
