"""The control plane: herders, group membership, assignors and fencing."""
