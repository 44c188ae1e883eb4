"""What nodes call: layer indices, graph navigation, models, cost meter."""
