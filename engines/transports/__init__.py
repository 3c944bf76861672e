"""How an engine talks to a pybatsim scheduler: in its own process (:mod:`.inprocess`, the
embedded engine's default), in a pybatsim process over ZeroMQ (:mod:`.process`), and the
message dispatch both share (:mod:`.dispatch`); :mod:`.plugin_exit` keeps a plugin that ends
its process from ending the engine's."""
