"""The baselines a rationalization paper compares against, each adding a player, a teacher or an intervention
to the selector and predictor: A2R, NIR, 3PLAYER, CAR, DMR, InvRat, Inter-RAT."""
