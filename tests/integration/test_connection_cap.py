"""--max-connections is one cap for the whole server, however many worker threads accept: a client
over it waits in the listen queue (neither refused nor reset) until a slot frees."""
import select
import socket
import time
import unittest

from ringside_testlib import ResponseReader, Server, get


class ConnectionCapAcrossThreadsTest(unittest.TestCase):
    CAP = 5
    CLIENTS = 50
    # How long a full server gets to (wrongly) answer one more client before we call it capped.
    OVER_CAP_LOOK = 0.3

    def test_two_threads_never_serve_more_than_the_cap_at_once(self):
        with Server("--max-connections", str(self.CAP), threads=2) as server:
            pending = []
            try:
                for _ in range(self.CLIENTS):
                    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
                    sock.sendall(get("/"))
                    pending.append(sock)
                served = 0
                # Each round: the server holds CAP keep-alive connections and serves no one else;
                # closing them frees the slots for the next CAP clients, on either thread.
                while pending:
                    expected = min(self.CAP, len(pending))
                    answered = self.collect_answers(pending, expected, timeout=15)
                    self.assertEqual(len(answered), expected,
                                     f"{served} served so far; a free slot was not used")
                    extra = self.collect_answers(pending, 1, timeout=self.OVER_CAP_LOOK)
                    self.assertEqual(extra, [], f"more than {self.CAP} clients served at once")
                    for sock in answered:
                        sock.close()
                    served += len(answered)
                self.assertEqual(served, self.CLIENTS)
            finally:
                for sock in pending:
                    sock.close()

    @staticmethod
    def collect_answers(pending, wanted, timeout):
        """Waits up to `timeout` for `wanted` of `pending` to get a 200; moves those out of
        `pending` and returns them. A reset or close would be a failure: it raises."""
        answered = []
        deadline = time.monotonic() + timeout
        while len(answered) < wanted:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            readable, _, _ = select.select(pending, [], [], remaining)
            for sock in readable:
                sock.settimeout(5)
                response = ResponseReader(sock).next()
                assert response.status == 200, response.status
                pending.remove(sock)
                answered.append(sock)
        return answered


if __name__ == "__main__":
    unittest.main()
