from django.urls import path

from puzzles import views

app_name = "puzzles"

urlpatterns = [
    path("puzzles/", views.puzzle_next, name="next"),
    path("puzzles/history/", views.puzzle_history, name="history"),
    path("puzzles/streak/", views.puzzle_streak, name="streak"),
    path("puzzles/streak/start/", views.puzzle_streak_start, name="streak_start"),
    path("puzzles/streak/<int:puzzle_id>/", views.puzzle_streak_answer, name="streak_answer"),
    path("puzzles/<int:puzzle_id>/", views.puzzle_detail, name="detail"),
]
